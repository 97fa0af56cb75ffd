// classify: run an ImageNet classifier on a JPEG/PNG/BMP/PPM image and print
// the top-5 classes.
//
//   classify image.jpg [model=PREFIX] [labels=FILE] [size=224] [in=input] [out=logits]
//            [mean=123.675,116.28,103.53] [norm=0.017125,0.017507,0.017429] [rgb=1] [softmax=1]
//   classify model.param model.bin image [options]     (any other classifier)
//
// The defaults are EfficientNet-Lite0 as examples/models/make_efficientnet_lite0.py
// makes it (tools/setup_and_bench.sh writes it to build/models/): PREFIX.param,
// PREFIX.bin and imagenet_labels.txt beside them; RGB, 224 x 224 (the whole image
// resized bilinearly), (pixel - mean) * norm with torchvision's ImageNet mean/std
// times 255, softmax over the logits. For a Caffe-style model (BGR, mean only)
// give e.g. size=227 in=data out=prob mean=104,117,123 norm=1,1,1 rgb=0 softmax=0.
//
// Images are decoded with stb_image (Debian: libstb-dev), which reads JPEG,
// PNG, BMP, TGA, GIF and PNM.
#include "mat.h"
#include "net.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#include <stb_image.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#ifndef KITE_EXAMPLE_MODEL_DIR
#define KITE_EXAMPLE_MODEL_DIR "models"
#endif

static bool parse_floats(const char* s, float* v)
{
    for (int i = 0; i < 3; i++)
    {
        char* end = nullptr;
        v[i] = strtof(s, &end);
        if (end == s || (i < 2 && *end != ',') || (i == 2 && *end))
            return false;
        s = end + 1;
    }
    return true;
}

static int usage(const char* argv0, FILE* f, int status)
{
    fprintf(f, "usage: %s image [model=PREFIX] [labels=FILE] [size=224] [in=input] [out=logits]\n"
               "       [mean=R,G,B] [norm=R,G,B] [rgb=1] [softmax=1]\n"
               "   or: %s model.param model.bin image [options]\n"
               "default model: %s/efficientnet_lite0 (make it with examples/models/make_efficientnet_lite0.py)\n",
            argv0, argv0, KITE_EXAMPLE_MODEL_DIR);
    return status;
}

int main(int argc, char** argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return usage(argv[0], stdout, 0);
    std::vector<std::string> pos;
    int first_opt = 1;
    while (first_opt < argc && !strchr(argv[first_opt], '='))
        pos.push_back(argv[first_opt++]);
    if (pos.size() != 1 && pos.size() != 3)
        return usage(argv[0], stderr, 2);

    std::string prefix = std::string(KITE_EXAMPLE_MODEL_DIR) + "/efficientnet_lite0";
    std::string param_path, bin_path, image_path = pos.back(), labels_path;
    int size = 224;
    bool rgb = true, softmax = true;
    std::string in_name = "input", out_name = "logits";
    float mean[3] = {123.675f, 116.28f, 103.53f};
    float norm[3] = {1.f / 58.395f, 1.f / 57.12f, 1.f / 57.375f};
    for (int i = first_opt; i < argc; i++)
    {
        const char* eq = strchr(argv[i], '=');
        std::string key(argv[i], eq ? eq - argv[i] : strlen(argv[i]));
        const char* val = eq ? eq + 1 : "";
        bool ok = true;
        if (key == "model") prefix = val;
        else if (key == "size") ok = (size = atoi(val)) > 0;
        else if (key == "in") in_name = val;
        else if (key == "out") out_name = val;
        else if (key == "mean") ok = parse_floats(val, mean);
        else if (key == "norm") ok = parse_floats(val, norm);
        else if (key == "rgb") rgb = atoi(val) != 0;
        else if (key == "softmax") softmax = atoi(val) != 0;
        else if (key == "labels") labels_path = val;
        else
        {
            fprintf(stderr, "classify: unknown option '%s'\n", argv[i]);
            return usage(argv[0], stderr, 2);
        }
        if (!ok)
        {
            fprintf(stderr, "classify: bad value in '%s'\n", argv[i]);
            return 2;
        }
    }
    if (pos.size() == 3)
        param_path = pos[0], bin_path = pos[1];
    else
    {
        param_path = prefix + ".param", bin_path = prefix + ".bin";
        if (labels_path.empty())
        {
            size_t slash = prefix.rfind('/');
            labels_path = (slash == std::string::npos ? std::string(".") : prefix.substr(0, slash)) + "/imagenet_labels.txt";
        }
    }

    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(image_path.c_str(), &w, &h, &channels, 3); // always 3 channels, RGB
    if (!pixels)
    {
        FILE* f = fopen(image_path.c_str(), "rb");
        if (!f)
            fprintf(stderr, "classify: cannot open '%s': %s\n", image_path.c_str(), strerror(errno));
        else
        {
            fclose(f);
            fprintf(stderr, "classify: cannot decode '%s': %s\n", image_path.c_str(), stbi_failure_reason());
        }
        return 1;
    }

    kite::Net net;
    if (net.load_param(param_path.c_str()) != 0 || net.load_model(bin_path.c_str()) != 0)
    {
        stbi_image_free(pixels);
        if (pos.size() == 1)
            fprintf(stderr, "classify: no model at '%s' (run examples/models/make_efficientnet_lite0.py --out %s, or give model=PREFIX)\n",
                    prefix.c_str(), KITE_EXAMPLE_MODEL_DIR);
        return 1; // the library has printed why
    }

    // interleaved 8-bit RGB -> planar float, resized to the network input
    kite::Mat in = kite::Mat::from_pixels_resize(pixels, rgb ? kite::Mat::PIXEL_RGB : kite::Mat::PIXEL_RGB2BGR, w, h, size, size);
    stbi_image_free(pixels);
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
    if (scores.empty())
    {
        fprintf(stderr, "classify: '%s' is empty\n", out_name.c_str());
        return 1;
    }
    if (softmax)
    {
        float mx = scores[0].first, sum = 0.f;
        for (const auto& s : scores)
            mx = std::max(mx, s.first);
        for (auto& s : scores)
            sum += (s.first = std::exp(s.first - mx));
        for (auto& s : scores)
            s.first /= sum;
    }
    int top = std::min(5, (int)scores.size());
    std::partial_sort(scores.begin(), scores.begin() + top, scores.end(),
                      [](const std::pair<float, int>& a, const std::pair<float, int>& b) { return a.first > b.first; });

    std::vector<std::string> labels;
    if (!labels_path.empty())
    {
        std::ifstream f(labels_path);
        if (!f)
            fprintf(stderr, "classify: cannot open '%s': %s (printing class indexes only)\n", labels_path.c_str(), strerror(errno));
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
