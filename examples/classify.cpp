// classify: run an image classifier (e.g. SqueezeNet, MobileNet) on a PPM/PGM
// image and print the top-5 classes.
//
//   classify model.param model.bin image.ppm [size=227] [in=data] [out=prob]
//            [mean=104,117,123] [norm=1,1,1] [rgb=0] [labels=synset.txt]
//
// The defaults suit Caffe-style ImageNet models (BGR, mean subtracted). Convert
// other images first, e.g. `convert cat.jpg cat.ppm` (ImageMagick).
#include "mat.h"
#include "net.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

// Binary PPM (P6, RGB) or PGM (P5, gray), 8 bits per sample.
static bool read_pnm(const char* path, std::vector<unsigned char>& pixels, int& w, int& h, int& channels)
{
    FILE* fp = fopen(path, "rb");
    if (!fp)
        return false;
    char magic[3] = {0};
    int vals[3], n = 0;
    bool ok = fread(magic, 1, 2, fp) == 2 && magic[0] == 'P' && (magic[1] == '5' || magic[1] == '6');
    while (ok && n < 3)
    {
        int ch = fgetc(fp);
        if (ch == '#')
            while (ch != '\n' && ch != EOF)
                ch = fgetc(fp);
        else if (ch >= '0' && ch <= '9')
        {
            ungetc(ch, fp);
            ok = fscanf(fp, "%d", &vals[n++]) == 1;
        }
        else if (ch == EOF)
            ok = false;
    }
    ok = ok && fgetc(fp) != EOF; // the single whitespace after maxval
    w = vals[0], h = vals[1], channels = magic[1] == '6' ? 3 : 1;
    ok = ok && w > 0 && h > 0 && w <= 16384 && h <= 16384 && vals[2] == 255;
    if (ok)
    {
        pixels.resize((size_t)w * h * channels);
        ok = fread(pixels.data(), 1, pixels.size(), fp) == pixels.size();
    }
    fclose(fp);
    return ok;
}

static void parse_floats(const char* s, float* v)
{
    for (int i = 0; i < 3; i++, s = strchr(s, ','), s = s ? s + 1 : "")
        if (*s)
            v[i] = (float)atof(s);
}

int main(int argc, char** argv)
{
    if (argc < 4)
    {
        fprintf(stderr, "usage: %s model.param model.bin image.ppm [size=227] [in=data] [out=prob] [mean=104,117,123] "
                        "[norm=1,1,1] [rgb=0] [labels=synset.txt]\n", argv[0]);
        return 2;
    }
    int size = 227;
    bool rgb = false;
    std::string in_name = "data", out_name = "prob", labels_path;
    float mean[3] = {104.f, 117.f, 123.f}, norm[3] = {1.f, 1.f, 1.f};
    for (int i = 4; i < argc; i++)
    {
        const char* eq = strchr(argv[i], '=');
        std::string key(argv[i], eq ? eq - argv[i] : strlen(argv[i]));
        const char* val = eq ? eq + 1 : "";
        if (key == "size") size = atoi(val);
        else if (key == "in") in_name = val;
        else if (key == "out") out_name = val;
        else if (key == "mean") parse_floats(val, mean);
        else if (key == "norm") parse_floats(val, norm);
        else if (key == "rgb") rgb = atoi(val) != 0;
        else if (key == "labels") labels_path = val;
        else
        {
            fprintf(stderr, "unknown option '%s'\n", argv[i]);
            return 2;
        }
    }

    std::vector<unsigned char> pixels;
    int w = 0, h = 0, channels = 0;
    if (!read_pnm(argv[3], pixels, w, h, channels))
    {
        fprintf(stderr, "cannot read '%s' (binary PPM P6 or PGM P5, maxval 255)\n", argv[3]);
        return 1;
    }

    kite::Net net;
    if (net.load_param(argv[1]) != 0 || net.load_model(argv[2]) != 0)
        return 1; // the library has printed why

    // interleaved 8-bit pixels -> planar float, resized to the network input
    int type = channels == 1 ? (rgb ? kite::Mat::PIXEL_GRAY2RGB : kite::Mat::PIXEL_GRAY2BGR)
                             : (rgb ? kite::Mat::PIXEL_RGB : kite::Mat::PIXEL_RGB2BGR);
    kite::Mat in = kite::Mat::from_pixels_resize(pixels.data(), type, w, h, size, size);
    in.substract_mean_normalize(mean, norm);

    kite::Extractor ex = net.create_extractor();
    kite::Mat out;
    if (ex.input(in_name.c_str(), in) != 0 || ex.extract(out_name.c_str(), out) != 0)
        return 1;

    // scores of every class, best first
    std::vector<std::pair<float, int> > scores;
    const int plane = out.w * out.h * out.d;
    for (int q = 0; q < out.c; q++)
    {
        const float* p = out.channel(q);
        for (int i = 0; i < plane; i++)
            scores.push_back(std::make_pair(p[i], q * plane + i));
    }
    int top = std::min(5, (int)scores.size());
    std::partial_sort(scores.begin(), scores.begin() + top, scores.end(),
                      [](const std::pair<float, int>& a, const std::pair<float, int>& b) { return a.first > b.first; });

    std::vector<std::string> labels;
    if (!labels_path.empty())
    {
        std::ifstream f(labels_path);
        for (std::string line; std::getline(f, line);)
            labels.push_back(line);
    }
    for (int i = 0; i < top; i++)
    {
        int k = scores[i].second;
        printf("%4d  %.5f  %s\n", k, scores[i].first, k < (int)labels.size() ? labels[k].c_str() : "");
    }
    return 0;
}
