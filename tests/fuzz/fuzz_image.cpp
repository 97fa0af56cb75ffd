// libFuzzer target: calibration images (kite::quantize::decode_image: stb_image
// decoding, kite's 16-bit conversion, resize, pixel order, mean/norm), what
// kitequantize's load_input does with a file's bytes. The first byte picks the
// pixel order and options, the rest is the file (any format stb_image reads).
#include "calib_data.h"
#include "fuzz_common.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    if (size < 1)
        return 0;
    static const char* pixels[] = {"RGB", "BGR", "GRAY", "RGBA", "BGRA"};
    const unsigned char sel = data[0];
    kite::quantize::DataOptions opt;
    opt.pixel = pixels[sel % 5];
    // decoding a large image runs the decoder's loops that a small one runs,
    // many times over: at most 256 kpixel here (the refusal above the limit is
    // the same code as kitequantize's at 64 Mpixel)
    opt.max_pixels = 256 * 1024;
    if (sel & 0x80)
    {
        opt.shape = {7, 5};
        opt.mean = {1.f, 2.f, 3.f};
        opt.norm = {0.5f};
    }
    kite::Mat m;
    std::string error = kite::quantize::decode_image(data + 1, size - 1, "fuzz", opt, m);
    if (!error.empty())
        return 0;
    if (m.empty())
    {
        fprintf(stderr, "decode_image accepted an image but gave no Mat\n");
        abort();
    }
    std::vector<float> v = kite::quantize::flatten(m);
    (void)v;
    return 0;
}
