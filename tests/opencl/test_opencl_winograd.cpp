// Convolution 3x3 stride 1 with >= 8 channels in and out runs Winograd
// F(2x2, 3x3) on OpenCL (shaders/opencl/winograd.cl): against the reference
// through test_layer (fp32 and fp16 storage, elempack 1/4/8), with odd sizes
// (partial tiles), channel counts not divisible by 4, padding, bias and
// fused activations.
#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace kite;
using namespace kite::test;

static std::string run_conv3x3(int w, int h, int c, int outc, int pad, bool bias, int act)
{
    ParamDict pd;
    pd.set(0, outc);
    pd.set(1, 3);
    pd.set(4, pad);
    pd.set(5, bias ? 1 : 0);
    pd.set(6, outc * c * 9);
    pd.set(9, act);
    if (act == 2)
        pd.set(10, FloatArrayMat({0.1f}));
    std::vector<Mat> weights = {RandomMat(outc * c * 9)};
    if (bias)
        weights.push_back(RandomMat(outc));
    return test_layer("Convolution", pd, weights, {RandomMat(w, h, c)});
}

TEST(OpenCLWinograd, Conv3x3)
{
    KITE_EXPECT_LAYER_OK(run_conv3x3(13, 9, 9, 11, 1, true, 1));
    KITE_EXPECT_LAYER_OK(run_conv3x3(6, 5, 16, 8, 0, false, 0));
    KITE_EXPECT_LAYER_OK(run_conv3x3(7, 7, 8, 13, 1, true, 2));
    KITE_EXPECT_LAYER_OK(run_conv3x3(3, 3, 10, 9, 0, true, 0)); // one output pixel: one partial tile
    KITE_EXPECT_LAYER_OK(run_conv3x3(31, 17, 20, 24, 1, true, 1));
}

// winograd_gemm_tiled (both tile sizes), winograd_gemm48 (8 output
// channels x 4 tiles a work item) and KITE_OPENCL_CONV=legacy's
// winograd_gemm against the reference: output counts ending in a full,
// a partial and a missing second quad of the last 8, tile counts not a
// multiple of 4, more than one block of 8
TEST(OpenCLWinograd, BlockedGemm)
{
    // (KITE_OPENCL_CONV, KITE_OPENCL_WINOGEMM): the default tiled GEMM, its
    // two tile sizes, winograd_gemm48, the legacy winograd_gemm
    const char* modes[][2] = {{"", ""}, {"", "16"}, {"", "8"}, {"", "48"}, {"legacy", ""}};
    for (const auto& mc : modes)
    {
        const char* mode = mc[0];
        if (*mode)
            setenv("KITE_OPENCL_CONV", mode, 1);
        if (*mc[1])
            setenv("KITE_OPENCL_WINOGEMM", mc[1], 1);
        SCOPED_TRACE(std::string("KITE_OPENCL_CONV=") + mode + " KITE_OPENCL_WINOGEMM=" + mc[1]);
        KITE_EXPECT_LAYER_OK(run_conv3x3(9, 7, 12, 12, 1, true, 1));  // 20 tiles, 8 + 4 outputs
        KITE_EXPECT_LAYER_OK(run_conv3x3(11, 5, 8, 22, 1, false, 0)); // 18 tiles, 8 + 8 + 6
        KITE_EXPECT_LAYER_OK(run_conv3x3(5, 9, 36, 40, 0, true, 2));  // 8 tiles, 5 blocks of 8
        KITE_EXPECT_LAYER_OK(run_conv3x3(19, 17, 24, 72, 1, true, 1)); // 90 tiles, 72 outputs: partial tiles both ways
        unsetenv("KITE_OPENCL_CONV");
        unsetenv("KITE_OPENCL_WINOGEMM");
    }
}
