// detect: run an SSD detector (DetectionOutput rows: label, score, x0, y0,
// x1, y1 in 0..1) on an image and write the image with the boxes drawn.
//
//   detect image.jpg [model=PREFIX] [out=detections.png] [size=300] [in=data] [output=output]
//          [mean=127.5,127.5,127.5] [norm=0.007843,0.007843,0.007843] [rgb=0] [threshold=0.25]
//
// Default model: PREFIX = build/models/mobilenet_ssd (MobileNet-SSD, VOC's 20
// classes; tools/setup_and_bench.sh writes mobilenet_ssd.param from
// ../shared/models/ncnn and mobilenet_ssd.bin). There are no trained detection
// weights in this repository or its shared folder: that .bin holds seeded
// RANDOM weights (kiterun writebin=), so the boxes it draws are meaningless.
// The program is the real pipeline (decode, resize, normalise, run, draw,
// encode); give it a trained MobileNet-SSD (e.g. converted with caffe2kite)
// and the boxes mean something.
//
// Images are decoded with stb_image and written with stb_image_write (PNG,
// or PPM when `out` ends in .ppm); Debian: libstb-dev.
#include "mat.h"
#include "net.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#include <stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef KITE_EXAMPLE_MODEL_DIR
#define KITE_EXAMPLE_MODEL_DIR "models"
#endif

static const char* voc_names[] = {"background", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car",
                                  "cat", "chair", "cow", "diningtable", "dog", "horse", "motorbike", "person",
                                  "pottedplant", "sheep", "sofa", "train", "tvmonitor"};

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

// a 3-pixel wide rectangle outline in an RGB image
static void draw_box(unsigned char* rgb, int w, int h, int x0, int y0, int x1, int y1, const unsigned char color[3])
{
    x0 = std::max(0, std::min(w - 1, x0)), x1 = std::max(0, std::min(w - 1, x1));
    y0 = std::max(0, std::min(h - 1, y0)), y1 = std::max(0, std::min(h - 1, y1));
    for (int t = 0; t < 3; t++)
    {
        for (int x = x0; x <= x1; x++)
            for (int y : {std::min(y0 + t, h - 1), std::max(y1 - t, 0)})
                memcpy(rgb + ((size_t)y * w + x) * 3, color, 3);
        for (int y = y0; y <= y1; y++)
            for (int x : {std::min(x0 + t, w - 1), std::max(x1 - t, 0)})
                memcpy(rgb + ((size_t)y * w + x) * 3, color, 3);
    }
}

int main(int argc, char** argv)
{
    const char* usage = "usage: %s image [model=PREFIX] [out=detections.png] [size=300] [in=data] [output=output]\n"
                        "       [mean=R,G,B] [norm=R,G,B] [rgb=0] [threshold=0.25]\n";
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
    {
        printf(usage, argv[0]);
        return 0;
    }
    if (argc < 2 || strchr(argv[1], '='))
    {
        fprintf(stderr, usage, argv[0]);
        return 2;
    }
    std::string prefix = std::string(KITE_EXAMPLE_MODEL_DIR) + "/mobilenet_ssd", out_path = "detections.png";
    std::string in_name = "data", out_name = "output";
    int size = 300;
    bool rgb = false;
    float threshold = 0.25f;
    float mean[3] = {127.5f, 127.5f, 127.5f}, norm[3] = {1 / 127.5f, 1 / 127.5f, 1 / 127.5f};
    for (int i = 2; i < argc; i++)
    {
        const char* eq = strchr(argv[i], '=');
        std::string key(argv[i], eq ? eq - argv[i] : strlen(argv[i]));
        const char* val = eq ? eq + 1 : "";
        bool ok = true;
        if (key == "model") prefix = val;
        else if (key == "out") out_path = val;
        else if (key == "size") ok = (size = atoi(val)) > 0;
        else if (key == "in") in_name = val;
        else if (key == "output") out_name = val;
        else if (key == "mean") ok = parse_floats(val, mean);
        else if (key == "norm") ok = parse_floats(val, norm);
        else if (key == "rgb") rgb = atoi(val) != 0;
        else if (key == "threshold") threshold = strtof(val, nullptr);
        else
        {
            fprintf(stderr, "detect: unknown option '%s'\n", argv[i]);
            fprintf(stderr, usage, argv[0]);
            return 2;
        }
        if (!ok)
        {
            fprintf(stderr, "detect: bad value in '%s'\n", argv[i]);
            return 2;
        }
    }

    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(argv[1], &w, &h, &channels, 3);
    if (!pixels)
    {
        FILE* f = fopen(argv[1], "rb");
        if (!f)
            fprintf(stderr, "detect: cannot open '%s': %s\n", argv[1], strerror(errno));
        else
        {
            fclose(f);
            fprintf(stderr, "detect: cannot decode '%s': %s\n", argv[1], stbi_failure_reason());
        }
        return 1;
    }

    kite::Net net;
    if (net.load_param((prefix + ".param").c_str()) != 0 || net.load_model((prefix + ".bin").c_str()) != 0)
    {
        stbi_image_free(pixels);
        fprintf(stderr, "detect: no model at '%s' (tools/setup_and_bench.sh makes it, or give model=PREFIX)\n", prefix.c_str());
        return 1;
    }
    kite::Mat in = kite::Mat::from_pixels_resize(pixels, rgb ? kite::Mat::PIXEL_RGB : kite::Mat::PIXEL_RGB2BGR, w, h, size, size);
    in.substract_mean_normalize(mean, norm);
    kite::Extractor ex = net.create_extractor();
    kite::Mat dets;
    if (ex.input(in_name.c_str(), in) != 0 || ex.extract(out_name.c_str(), dets) != 0)
    {
        stbi_image_free(pixels);
        return 1;
    }

    // rows of 6: label, score, x0, y0, x1, y1 (0..1); an empty Mat: nothing found
    static const unsigned char palette[6][3] = {{230, 25, 75}, {60, 180, 75}, {255, 225, 25}, {0, 130, 200}, {245, 130, 48}, {145, 30, 180}};
    int drawn = 0;
    for (int i = 0; !dets.empty() && dets.w == 6 && i < dets.h; i++)
    {
        const float* r = dets.row(i);
        if (r[1] < threshold)
            continue;
        int label = (int)r[0];
        int x0 = (int)(r[2] * w), y0 = (int)(r[3] * h), x1 = (int)(r[4] * w), y1 = (int)(r[5] * h);
        printf("%-12s %.3f  [%d, %d, %d, %d]\n", label >= 0 && label < 21 ? voc_names[label] : "?", r[1], x0, y0, x1, y1);
        draw_box(pixels, w, h, x0, y0, x1, y1, palette[label % 6]);
        drawn++;
    }
    if (!dets.empty() && dets.w != 6)
        fprintf(stderr, "detect: warning: '%s' has rows of %d values, expected 6 (label, score, box)\n", out_name.c_str(), dets.w);
    size_t n = out_path.size();
    bool ppm = n >= 4 && out_path.compare(n - 4, 4, ".ppm") == 0;
    int ok;
    if (ppm)
    {
        FILE* f = fopen(out_path.c_str(), "wb");
        ok = f && fprintf(f, "P6\n%d %d\n255\n", w, h) > 0 && fwrite(pixels, 1, (size_t)w * h * 3, f) == (size_t)w * h * 3;
        if (f && fclose(f) != 0)
            ok = 0;
    }
    else
        ok = stbi_write_png(out_path.c_str(), w, h, 3, pixels, w * 3);
    stbi_image_free(pixels);
    if (!ok)
    {
        fprintf(stderr, "detect: cannot write '%s': %s\n", out_path.c_str(), strerror(errno));
        return 1;
    }
    printf("%d boxes drawn into '%s'\n", drawn, out_path.c_str());
    return 0;
}
