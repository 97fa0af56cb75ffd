#include "allocator.h"
#include "conv_naive.h"
#include "convolutiondepthwise.h"
#include "cpu.h"
#include "layer.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace kite;
using namespace kite::test;

// (channels, num_output, group, kernel, dilation, stride, pad, act, pad_value, bias)
static std::string run_dw(int w, int h, int c, int outc, int group, int k, int dil, int stride, int pad, int act,
                          const std::vector<float>& ap, float pad_value = 0.f, bool bias = true)
{
    ParamDict pd;
    const int wsize = outc * (c / group) * k * k;
    pd.set(0, outc);
    pd.set(1, k);
    pd.set(2, dil);
    pd.set(3, stride);
    pd.set(4, pad);
    pd.set(18, pad_value);
    pd.set(5, bias ? 1 : 0);
    pd.set(6, wsize);
    pd.set(7, group);
    pd.set(9, act);
    if (!ap.empty())
        pd.set(10, FloatArrayMat(ap));
    std::vector<Mat> weights = {RandomMat(wsize)};
    if (bias)
        weights.push_back(RandomMat(outc));
    Mat in = RandomMat(w, h, c, -2.f, 2.f);
    std::vector<Mat> out;
    std::string r = test_layer("ConvolutionDepthWise", pd, weights, {in}, TestLayerFlags(), &out);
    if (!r.empty())
        return r;
    NaiveConv p;
    p.outc = outc;
    p.group = group;
    p.k[0] = p.k[1] = k;
    p.dil[0] = p.dil[1] = dil;
    p.stride[0] = p.stride[1] = stride;
    for (int a = 0; a < 2; a++)
        p.pad0[a] = p.pad1[a] = pad;
    p.pad_value = pad_value;
    p.act = act;
    p.act_params = ap;
    Dense want = naive_conv(to_dense(in), mat_values(weights[0]), bias ? mat_values(weights[1]) : std::vector<float>(), p);
    return compare_dense(to_dense(out[0]), want, 1e-4f);
}

TEST(ConvolutionDepthWise, depthwise)
{
    reseed(1);
    for (int stride : {1, 2, 3})
        for (int k : {1, 3, 5})
            for (int dil : {1, 2})
                KITE_EXPECT_LAYER_OK(run_dw(11, 10, 6, 6, 6, k, dil, stride, k / 2, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(9, 7, 16, 16, 16, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(9, 7, 5, 5, 5, 3, 1, 2, 1, 0, {}, 0.3f));
    // unpacked rows of several vectors plus tails (x86 row kernel), strides 1-3
    for (int stride : {1, 2, 3})
        KITE_EXPECT_LAYER_OK(run_dw(61, 5, 3, 3, 3, 3, 1, stride, 1, 1, {}));
    // stride 2 deinterleave (32/8-float vector steps plus a tail) with an even
    // and an odd left pad and a pad value; stride 1 without pads (read in place)
    KITE_EXPECT_LAYER_OK(run_dw(75, 4, 3, 3, 3, 5, 1, 2, 2, 0, {}, 0.4f));
    KITE_EXPECT_LAYER_OK(run_dw(75, 4, 3, 3, 3, 3, 1, 2, 1, 0, {}, -0.3f));
    KITE_EXPECT_LAYER_OK(run_dw(21, 4, 3, 3, 3, 3, 1, 1, 0, 1, {}));
}

// channel counts that pack by 4, 8 and 16 (the x86 packed kernels), odd
// spatial sizes, every kernel/stride the mobile graphs use
TEST(ConvolutionDepthWise, packed_channels)
{
    reseed(8);
    for (int c : {12, 24, 48})
        for (int k : {3, 5})
            for (int stride : {1, 2})
                KITE_EXPECT_LAYER_OK(run_dw(13, 11, c, c, c, k, 1, stride, k / 2, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(10, 9, 32, 32, 32, 3, 2, 1, 2, 2, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_dw(7, 6, 16, 16, 16, 3, 1, 2, 1, 3, {0.f, 6.f}));
    KITE_EXPECT_LAYER_OK(run_dw(3, 2, 64, 64, 64, 3, 1, 1, 1, 6, {0.2f, 0.5f}, 0.25f));
    // stride 1 at elempack 4/8 under wider vectors (several pixels per vector):
    // 15 inside columns = two-vector steps, a one-vector step and a tail
    KITE_EXPECT_LAYER_OK(run_dw(17, 5, 24, 24, 24, 3, 1, 1, 1, 3, {-0.5f, 0.5f}));
}

// the fixed-tap 3x3 / 5x5 / 7x7 blocks (stride 1 and 2, dilation_w 1): rows wide
// enough for several blocks of 8 outputs plus tails of 4, 2 and 1 (47 and
// 38 columns; 33 at stride 2: 15), every elempack, with
// and without a fused activation, a pad value, dilation 2 (the generic path)
TEST(ConvolutionDepthWise, packed_fixed_blocks)
{
    reseed(14);
    for (int c : {4, 8, 16, 40})
        for (int k : {3, 5, 7})
            for (int stride : {1, 2})
                KITE_EXPECT_LAYER_OK(run_dw(47, k == 7 ? 9 : 6, c, c, c, k, 1, stride, k / 2, stride == 1 ? 0 : 2, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_dw(38, 5, 24, 24, 24, 3, 1, 1, 1, 1, {}, 0.5f));
    KITE_EXPECT_LAYER_OK(run_dw(40, 9, 16, 16, 16, 3, 2, 2, 2, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(33, 8, 12, 12, 12, 5, 1, 2, 0, 3, {-1.f, 1.f}));
    KITE_EXPECT_LAYER_OK(run_dw(29, 10, 32, 32, 32, 7, 1, 1, 3, 1, {}, 0.25f));
    // small maps under wide kernels (most windows on the border): padded first
    KITE_EXPECT_LAYER_OK(run_dw(7, 7, 48, 48, 48, 7, 1, 1, 3, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(14, 13, 24, 24, 24, 7, 1, 2, 3, 0, {}, -0.5f));
    KITE_EXPECT_LAYER_OK(run_dw(7, 6, 20, 20, 20, 5, 1, 1, 2, 2, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_dw(4, 5, 16, 16, 16, 3, 1, 2, 1, 0, {}));
    // stride 1 at elempack 4 / 8 with rows of at most 32: padded first too
    KITE_EXPECT_LAYER_OK(run_dw(28, 9, 60, 60, 60, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(20, 6, 8, 8, 8, 3, 1, 1, 1, 0, {}, 0.5f));
    KITE_EXPECT_LAYER_OK(run_dw(17, 8, 12, 12, 12, 5, 1, 1, 2, 2, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_dw(32, 3, 24, 24, 24, 3, 1, 1, 1, 0, {}));
    // stride 1 with a quarter of the columns border windows (5x5 on 14x14 and
    // 3x3 on 7x7 at elempack 16, EfficientNet / MobileNet): padded first
    KITE_EXPECT_LAYER_OK(run_dw(14, 14, 32, 32, 32, 5, 1, 1, 2, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(13, 11, 48, 48, 48, 5, 1, 1, 2, 3, {-0.5f, 0.5f}, 0.25f));
    KITE_EXPECT_LAYER_OK(run_dw(7, 7, 64, 64, 64, 3, 1, 1, 1, 3, {0.f, 6.f}));
    KITE_EXPECT_LAYER_OK(run_dw(9, 7, 40, 40, 40, 3, 1, 1, 1, 0, {}, -0.25f));
}

// packed inputs are read in place with the border handled by the kernel:
// strided windows that reach the right/bottom pad or not, a kernel wider than
// the input (every window on the border) with a pad value, dilation past the
// border
TEST(ConvolutionDepthWise, packed_border)
{
    reseed(13);
    KITE_EXPECT_LAYER_OK(run_dw(12, 10, 16, 16, 16, 3, 1, 2, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(11, 9, 8, 8, 8, 3, 1, 2, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(14, 13, 16, 16, 16, 5, 1, 3, 2, 0, {}, 0.5f));
    KITE_EXPECT_LAYER_OK(run_dw(2, 3, 16, 16, 16, 5, 1, 1, 2, 0, {}, -0.5f));
    KITE_EXPECT_LAYER_OK(run_dw(9, 8, 16, 16, 16, 3, 3, 1, 3, 0, {}, 0.75f));
}

TEST(ConvolutionDepthWise, grouped_and_multiplier)
{
    reseed(2);
    KITE_EXPECT_LAYER_OK(run_dw(9, 8, 4, 8, 4, 3, 1, 1, 1, 0, {})); // channel multiplier 2
    KITE_EXPECT_LAYER_OK(run_dw(9, 8, 6, 9, 3, 3, 1, 2, 1, 0, {})); // 2 in -> 3 out per group
    KITE_EXPECT_LAYER_OK(run_dw(7, 9, 8, 4, 2, 3, 2, 1, 2, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(5, 5, 6, 6, 2, 1, 1, 1, 0, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(8, 8, 16, 32, 8, 3, 1, 2, 1, 0, {}));
}

// grouped layers (one Convolution driver per group on the CPU rows): group
// counts of real models (AlexNet 2, ShuffleNet v1 3, RegNet widths of 8,
// ResNeXt 32), per-group channel counts that do not pack by 4 or 8 (the
// input is repacked), 1x1 / 3x3 (Winograd where wide enough) / 5x5, strides,
// dilation, pads, pad values, no bias, activations; with 2 threads group
// counts that divide it run side by side, 3 groups one after another
TEST(ConvolutionDepthWise, grouped_any_group_count)
{
    reseed(5);
    KITE_EXPECT_LAYER_OK(run_dw(10, 9, 6, 6, 2, 3, 1, 1, 1, 0, {}));             // 2 groups of 3
    KITE_EXPECT_LAYER_OK(run_dw(13, 11, 48, 48, 2, 3, 1, 1, 1, 1, {}));          // 2 groups of 24: Winograd
    KITE_EXPECT_LAYER_OK(run_dw(9, 7, 12, 24, 3, 1, 1, 1, 0, 1, {}));            // 1x1, 3 groups of 4 -> 8
    KITE_EXPECT_LAYER_OK(run_dw(8, 6, 60, 30, 3, 1, 1, 1, 0, 0, {}));            // 1x1, 3 groups of 20 -> 10
    KITE_EXPECT_LAYER_OK(run_dw(9, 7, 6, 10, 2, 3, 1, 1, 1, 0, {}));             // 2 groups of 3 -> 5: a short last block of outputs
    KITE_EXPECT_LAYER_OK(run_dw(11, 10, 16, 16, 4, 5, 1, 2, 2, 2, {0.1f}));      // 5x5 stride 2
    KITE_EXPECT_LAYER_OK(run_dw(12, 9, 64, 64, 8, 3, 1, 1, 1, 0, {}));           // 8 groups of 8
    KITE_EXPECT_LAYER_OK(run_dw(12, 9, 96, 96, 8, 3, 1, 2, 1, 1, {}));           // 8 groups of 12, stride 2
    KITE_EXPECT_LAYER_OK(run_dw(8, 8, 96, 96, 32, 3, 1, 2, 1, 0, {}));           // 32 groups of 3
    KITE_EXPECT_LAYER_OK(run_dw(7, 7, 128, 128, 32, 3, 1, 1, 1, 0, {}, 0.f, false)); // 32 groups of 4, no bias
    // groups of 32 without a shape hint (keep the GEMM copy): a 7x7 map on
    // the GEMM (F(6,3) has 4 tiles), a 20x18 one on Winograd
    KITE_EXPECT_LAYER_OK(run_dw(7, 7, 128, 128, 4, 3, 1, 1, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(20, 18, 64, 64, 2, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(9, 9, 40, 20, 4, 3, 2, 1, 2, 3, {-0.5f, 0.7f})); // dilation 2, 10 -> 5, clip
    KITE_EXPECT_LAYER_OK(run_dw(10, 7, 10, 15, 5, 3, 1, 1, 1, 4, {}, 0.5f));     // pad value, sigmoid
    KITE_EXPECT_LAYER_OK(run_dw(6, 5, 12, 12, 2, 3, 1, 1, 0, 0, {}, 0.f, false)); // no padding, no bias
}

// OpenCL's conv2d_grouped4 (groups of 4k output channels: 4 channels x 4
// pixels a work item) on both of its input paths (whole texels where the
// group's input channels are a multiple of 4, single lanes otherwise), maps
// narrower than its 4 pixels, pixels past the last block of 4, strides,
// dilation, pad values; KITE_OPENCL_CONV=legacy runs conv2d_grouped instead
TEST(ConvolutionDepthWise, grouped_output_quads)
{
    reseed(21);
    for (const char* mode : {"", "legacy"})
    {
        if (*mode)
            setenv("KITE_OPENCL_CONV", mode, 1);
        SCOPED_TRACE(std::string("KITE_OPENCL_CONV=") + mode);
        KITE_EXPECT_LAYER_OK(run_dw(13, 11, 32, 32, 2, 3, 1, 1, 1, 1, {}));           // AlexNet-like: 2 groups of 16
        KITE_EXPECT_LAYER_OK(run_dw(7, 5, 48, 24, 2, 3, 1, 1, 1, 0, {}, 0.f, false)); // 24 -> 12, no bias
        KITE_EXPECT_LAYER_OK(run_dw(9, 7, 60, 24, 3, 1, 1, 1, 0, 1, {}));             // ShuffleNet 1x1: 20 -> 8
        KITE_EXPECT_LAYER_OK(run_dw(6, 7, 24, 60, 3, 1, 1, 1, 0, 0, {}));             // 8 -> 20
        KITE_EXPECT_LAYER_OK(run_dw(11, 9, 15, 24, 3, 5, 1, 2, 2, 2, {0.1f}, 0.3f));  // 5 in per group: lanes
        KITE_EXPECT_LAYER_OK(run_dw(3, 5, 6, 16, 2, 3, 1, 1, 1, 0, {}));              // 3 in per group, 3 wide
        KITE_EXPECT_LAYER_OK(run_dw(10, 9, 64, 128, 4, 3, 2, 3, 2, 3, {-0.5f, 0.7f})); // 16 -> 32, stride 3, dilation 2
        KITE_EXPECT_LAYER_OK(run_dw(5, 4, 256, 256, 8, 3, 1, 1, 1, 0, {}, -0.4f));    // 8 groups of 32
        KITE_EXPECT_LAYER_OK(run_dw(2, 2, 16, 8, 2, 1, 1, 1, 0, 4, {}));              // 2 x 2 map
        unsetenv("KITE_OPENCL_CONV");
    }
}

// groups of 4, 8 or 16 channels in and out (RegNet's width 8): the direct
// kernel of conv_direct_planar_cpu.h on the packed blobs, each group a run of
// lanes of its elements (13 groups of 8 at pack 8, 26 at pack 16, 3 of 16, 5
// of 4, ...), rows of 8+ pixels with 2- and 1-pixel tails, strides 1 and 2,
// 5x5, dilation, pad values, no bias, every fused activation
TEST(ConvolutionDepthWise, grouped_direct)
{
    reseed(41);
    KITE_EXPECT_LAYER_OK(run_dw(21, 7, 104, 104, 13, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(19, 6, 208, 208, 26, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(23, 9, 208, 208, 26, 3, 1, 2, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(13, 5, 48, 48, 3, 3, 1, 1, 1, 2, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_dw(17, 8, 48, 48, 3, 3, 1, 2, 1, 6, {0.2f, 0.5f}));
    KITE_EXPECT_LAYER_OK(run_dw(11, 10, 20, 20, 5, 5, 1, 2, 2, 3, {-0.5f, 0.5f}));
    KITE_EXPECT_LAYER_OK(run_dw(12, 9, 24, 24, 3, 3, 2, 1, 2, 4, {}, 0.5f));
    KITE_EXPECT_LAYER_OK(run_dw(9, 7, 40, 40, 5, 3, 1, 1, 0, 5, {}, 0.f, false));
    KITE_EXPECT_LAYER_OK(run_dw(7, 7, 440, 440, 55, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(3, 2, 12, 12, 3, 1, 1, 1, 0, 0, {}));
    // blocks of 8 pixels across output rows (RegNet's width 16 on 7x7 and
    // 14x14 -> 7x7): 49 = 6 x 8 + 1, a map smaller than a block
    KITE_EXPECT_LAYER_OK(run_dw(7, 7, 160, 160, 10, 3, 1, 1, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_dw(14, 13, 400, 400, 25, 3, 1, 2, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_dw(2, 3, 32, 32, 4, 3, 1, 1, 1, 1, {}));
}

TEST(ConvolutionDepthWise, activations)
{
    reseed(3);
    const std::vector<std::vector<float> > params = {{}, {}, {0.1f}, {-0.5f, 0.7f}, {}, {}, {0.2f, 0.5f}};
    for (int act = 0; act <= 6; act++)
    {
        KITE_EXPECT_LAYER_OK(run_dw(8, 7, 4, 4, 4, 3, 1, 1, 1, act, params[act]));
        KITE_EXPECT_LAYER_OK(run_dw(8, 7, 6, 6, 3, 3, 1, 2, 1, act, params[act]));
        // 8 channels: arm82's fp16-arithmetic kernel applies the activation itself
        KITE_EXPECT_LAYER_OK(run_dw(9, 6, 8, 8, 8, 3, 1, 1, 1, act, params[act]));
    }
}

// kernel k x k, dilation dil, padding pad on every side
static std::string run_dw_int8(int c, int outc, int group, int stride, int scale_term, bool s8, int act, int w = 9, int h = 8,
                               int k = 3, int dil = 1, int pad = 1, const std::vector<float>& ap = {},
                               float pad_value = 0.f)
{
    ParamDict pd;
    const int wsize = outc * (c / group) * k * k;
    pd.set(0, outc);
    pd.set(1, k);
    pd.set(2, dil);
    pd.set(3, stride);
    pd.set(4, pad);
    pd.set(5, 1);
    pd.set(6, wsize);
    pd.set(7, group);
    pd.set(8, scale_term);
    pd.set(9, act);
    if (!ap.empty())
        pd.set(10, FloatArrayMat(ap));
    pd.set(18, pad_value);
    Mat wt = s8 ? RandomS8Mat(wsize) : RandomMat(wsize);
    const bool per_group = scale_term == 1 || scale_term == 101;
    Mat wscales = RandomMat(per_group ? group : 1, 50.f, 150.f);
    Mat bscale = RandomMat(1, 60.f, 120.f), tscale = RandomMat(1, 5.f, 20.f);
    std::vector<Mat> weights = {wt, RandomMat(outc), wscales, bscale};
    if (scale_term > 100)
        weights.push_back(tscale);
    Mat in = RandomMat(w, h, c);
    std::vector<Mat> out;
    // no fp16-storage variants (the CPU int8 rows take fp32 only): an fp16
    // input is rounded before it is quantized, which moves int8 values by a
    // step that no tolerance describes; the fp16 graph runs cover GPU int8
    TestLayerFlags flags;
    flags.test_fp16 = false;
#if defined(__aarch64__) || defined(__arm__)
    // the ARM kernels: integer sums and the reference's epilogue, so exactly
    // the reference's values (x86 takes an approximate reciprocal scale where
    // the channels pack by 8, and its vector epilogue may be contracted into
    // FMAs: within the tolerance)
    flags.epsilon = 0.f;
#endif
    // the GPU rows: the reference's int8 arithmetic exactly, except on
    // depth-wise layers with a multiple of 8 channels, which take the packed
    // CPU kernels' reciprocal scale (see above)
    if (!(c == group && outc == group && c % 8 == 0))
        flags.epsilon_gpu = 0.f;
    std::string r = test_layer("ConvolutionDepthWise", pd, weights, {in}, flags, &out);
    if (!r.empty())
        return r;
    NaiveConv p;
    p.outc = outc;
    p.group = group;
    p.k[0] = p.k[1] = k;
    p.stride[0] = p.stride[1] = stride;
    p.dil[0] = p.dil[1] = dil;
    for (int a = 0; a < 2; a++)
        p.pad0[a] = p.pad1[a] = pad;
    p.act = act;
    p.act_params = ap;
    p.pad_value = pad_value;
    p.int8 = true;
    p.bottom_scale = bscale[0];
    for (int oc = 0; oc < outc; oc++)
        p.weight_scales.push_back(wscales[per_group ? oc / (outc / group) : 0]);
    p.requant = scale_term > 100;
    p.top_scale = tscale[0];
    // the naive code quantizes per out channel; the layer per group: same values since a group shares its scale
    Dense want = naive_conv(to_dense(in), mat_values(wt), mat_values(weights[1]), p, s8);
    return compare_dense(to_dense(out[0]), want, p.requant ? 1.01f : 1e-4f);
}

TEST(ConvolutionDepthWise, int8)
{
    reseed(4);
    for (int term : {1, 2, 101, 102})
        for (bool s8 : {true, false})
        {
            KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 1, term, s8, 0));
            KITE_EXPECT_LAYER_OK(run_dw_int8(6, 6, 3, 2, term, s8, 1));
            KITE_EXPECT_LAYER_OK(run_dw_int8(4, 8, 2, 1, term, s8, 0));
        }
    // more channels, both strides; requantized outputs only where no elempack-8
    // numerics apply (those differ from the packing-off reference by a rounding)
    KITE_EXPECT_LAYER_OK(run_dw_int8(16, 16, 16, 1, 1, true, 1));
    KITE_EXPECT_LAYER_OK(run_dw_int8(12, 12, 12, 1, 101, true, 1));
    KITE_EXPECT_LAYER_OK(run_dw_int8(24, 24, 24, 2, 2, false, 0));
    KITE_EXPECT_LAYER_OK(run_dw_int8(20, 20, 20, 2, 102, false, 0));
    KITE_EXPECT_LAYER_OK(run_dw_int8(16, 16, 16, 2, 1, true, 1));
    // rows of several vectors plus a tail, strides 1-3 (the x86 kernel pairs
    // adjacent taps at strides 1 and 2)
    KITE_EXPECT_LAYER_OK(run_dw_int8(8, 8, 8, 1, 1, true, 1, 37, 11));
    KITE_EXPECT_LAYER_OK(run_dw_int8(8, 8, 8, 2, 2, false, 0, 38, 9));
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 3, 1, true, 1, 41, 10));
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 2, 101, true, 1, 35, 7));
    // even and wider kernels (a last tap without a partner), dilation at
    // stride 1 (pairs 2 columns apart) and 2 (taps one by one), no padding
    KITE_EXPECT_LAYER_OK(run_dw_int8(8, 8, 8, 1, 2, true, 1, 23, 6, 2, 1, 0));
    KITE_EXPECT_LAYER_OK(run_dw_int8(12, 12, 12, 2, 101, true, 1, 21, 9, 5, 1, 2));
    KITE_EXPECT_LAYER_OK(run_dw_int8(8, 8, 8, 1, 1, false, 0, 19, 8, 3, 2, 2));
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 2, 2, true, 1, 17, 9, 4, 2, 1));
    // the ARM kernels: 7 taps a row (two SDOT tap groups), stride 2 with
    // dilation 3 (the widest TBL window), stride 3 with dilation 3 (taps one
    // by one), LeakyReLU / Clip in the vector epilogue, 11 outputs of a
    // 16-pixel block
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 1, 101, true, 1, 21, 9, 7, 1, 3));
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 2, 1, false, 2, 25, 8, 3, 3, 3, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 3, 102, true, 3, 23, 10, 3, 3, 3, {-0.5f, 0.7f}));
    KITE_EXPECT_LAYER_OK(run_dw_int8(4, 4, 4, 1, 2, true, 3, 27, 5, 3, 1, 1, {-0.5f, 0.7f}));
    // packed fp32 inputs quantized and unpacked in one pass (elempack 16 on
    // AVX-512, 8, 4): MobileNetV2's 3x3 s1/s2 with ReLU6, odd sizes
    KITE_EXPECT_LAYER_OK(run_dw_int8(32, 32, 32, 1, 2, true, 3, 15, 13, 3, 1, 1, {0.f, 6.f}));
    KITE_EXPECT_LAYER_OK(run_dw_int8(48, 48, 48, 2, 1, true, 1, 17, 11));
    KITE_EXPECT_LAYER_OK(run_dw_int8(20, 20, 20, 1, 2, false, 0, 9, 5, 5, 1, 2));
    // a pad value (written once per thread into the padded planes), 2 threads
    // share the channels
    KITE_EXPECT_LAYER_OK(run_dw_int8(6, 6, 6, 1, 1, true, 0, 10, 6, 3, 1, 2, {}, 37.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(6, 6, 6, 2, 101, false, 1, 11, 7, 3, 1, 1, {}, -20.f));
    // packed inputs (elempack 4/8/16) through the packed fp32 kernels on
    // integral floats (forward_int8_exact): TFLite's shifted-grid pad values,
    // activations past Clip (per value), 5x5 / 7x7 fixed blocks, dilation,
    // odd maps, the border-copy and bounds-checked windows
    KITE_EXPECT_LAYER_OK(run_dw_int8(16, 16, 16, 1, 2, true, 4, 23, 13, 3, 1, 1, {}, -127.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(32, 32, 32, 2, 1, true, 3, 31, 17, 5, 1, 2, {0.f, 6.f}, 5.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(8, 8, 8, 1, 2, false, 2, 13, 7, 3, 1, 1, {0.1f}, -128.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(16, 16, 16, 1, 1, true, 1, 19, 15, 7, 1, 3));
    KITE_EXPECT_LAYER_OK(run_dw_int8(16, 16, 16, 1, 1, true, 0, 21, 9, 3, 2, 2, {}, 3.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(24, 24, 24, 2, 2, true, 6, 40, 3, 3, 1, 0, {0.2f, 0.5f}));
}

// int8 grouped layers: the family's int8 GEMM per group on the CPU rows
TEST(ConvolutionDepthWise, int8_grouped)
{
    reseed(6);
    KITE_EXPECT_LAYER_OK(run_dw_int8(12, 12, 3, 1, 1, true, 1));
    KITE_EXPECT_LAYER_OK(run_dw_int8(16, 32, 4, 2, 101, false, 0));
    KITE_EXPECT_LAYER_OK(run_dw_int8(64, 64, 8, 1, 2, true, 1, 9, 8, 1, 1, 0));
    KITE_EXPECT_LAYER_OK(run_dw_int8(12, 24, 2, 1, 102, true, 3, 11, 9, 5, 1, 2, {-0.5f, 0.7f}));
    KITE_EXPECT_LAYER_OK(run_dw_int8(96, 96, 32, 2, 1, false, 0, 10, 9, 3, 1, 1));
    // the path boundary of Vulkan's tiled int8 GEMM (at least 8 output quads
    // a group, one group per work-group layer; fewer run int8conv_q.comp),
    // exact: 32 and 28 outputs a group, stride, dilation, pad value; the
    // default choice, then the 32 x 32 tiles with K split in 3 and the
    // 64 x 64 ones
    KITE_EXPECT_LAYER_OK(run_dw_int8(64, 64, 2, 1, 2, true, 1, 9, 7, 3, 1, 1, {}, 0.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(56, 56, 2, 1, 2, true, 1, 9, 7, 3, 1, 1, {}, 0.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(48, 96, 3, 2, 102, true, 1, 11, 8, 3, 2, 2, {}, -5.f));
    setenv("KITE_VULKAN_INT8GEMM", "8", 1);
    setenv("KITE_VULKAN_INT8SPLITK", "3", 1);
    KITE_EXPECT_LAYER_OK(run_dw_int8(64, 64, 2, 1, 2, true, 1, 9, 7, 3, 1, 1, {}, 0.f));
    KITE_EXPECT_LAYER_OK(run_dw_int8(48, 96, 3, 2, 102, true, 1, 11, 8, 3, 2, 2, {}, -5.f));
    unsetenv("KITE_VULKAN_INT8SPLITK");
    setenv("KITE_VULKAN_INT8GEMM", "16", 1);
    KITE_EXPECT_LAYER_OK(run_dw_int8(48, 96, 3, 1, 1, false, 0, 10, 9, 1, 1, 0, {}, 0.f));
    // both variants of the GEMM (packed integer dot products where the
    // device has them, float partial sums)
    for (const char* dot : {"0", "1"})
    {
        SCOPED_TRACE(std::string("KITE_VULKAN_INT8_DOT=") + dot);
        setenv("KITE_VULKAN_INT8_DOT", dot, 1);
        KITE_EXPECT_LAYER_OK(run_dw_int8(64, 64, 2, 1, 2, true, 1, 9, 7, 3, 1, 1, {}, 0.f));
        setenv("KITE_VULKAN_INT8GEMM", "8", 1);
        setenv("KITE_VULKAN_INT8SPLITK", "2", 1);
        KITE_EXPECT_LAYER_OK(run_dw_int8(48, 96, 3, 2, 102, true, 1, 11, 8, 3, 2, 2, {}, -5.f));
        unsetenv("KITE_VULKAN_INT8SPLITK");
        setenv("KITE_VULKAN_INT8GEMM", "16", 1);
    }
    unsetenv("KITE_VULKAN_INT8_DOT");
    unsetenv("KITE_VULKAN_INT8GEMM");
}

TEST(ConvolutionDepthWise, rejects_bad_params_and_shapes)
{
    reseed(5);
    std::string why;
    ParamDict pd;
    pd.set(0, 6);
    pd.set(1, 3);
    pd.set(6, 6 * 9);
    pd.set(7, 4); // 6 outputs do not split into 4 groups
    EXPECT_TRUE(run_reference("ConvolutionDepthWise", pd, {RandomMat(54)}, {RandomMat(5, 5, 6)}, &why).empty());
    pd.set(7, 6);
    // channels that do not match group * weights
    EXPECT_TRUE(run_reference("ConvolutionDepthWise", pd, {RandomMat(54)}, {RandomMat(5, 5, 5)}, &why).empty());
    EXPECT_FALSE(run_reference("ConvolutionDepthWise", pd, {RandomMat(54)}, {RandomMat(5, 5, 6)}, &why).empty()) << why;
    pd.set(8, 3); // unknown int8_scale_term
    EXPECT_TRUE(run_reference("ConvolutionDepthWise", pd, {RandomMat(54)}, {RandomMat(5, 5, 6)}, &why).empty());
}

// grouped layers whose groups run side by side (2 threads, 8 groups) with
// pool allocators that are not thread-safe as blob and workspace allocators:
// the groups reach them through a lock; the same result as the reference,
// run after run (the pools reuse their blocks), fp32 and packed inputs
TEST(ConvolutionDepthWise, grouped_across_threads_with_unlocked_pools)
{
    reseed(41);
    ParamDict pd;
    const int c = 64, outc = 64, group = 8, k = 3;
    pd.set(ConvolutionDepthWise::PARAM_NUM_OUTPUT, outc);
    pd.set(ConvolutionDepthWise::PARAM_KERNEL_W, k);
    pd.set(ConvolutionDepthWise::PARAM_PAD_LEFT, 1);
    pd.set(ConvolutionDepthWise::PARAM_BIAS_TERM, 1);
    pd.set(ConvolutionDepthWise::PARAM_WEIGHT_DATA_SIZE, outc * (c / group) * k * k);
    pd.set(7, group); // group
    const std::vector<Mat> weights = {RandomMat(outc * (c / group) * k * k), RandomMat(outc)};
    const Mat in = RandomMat(15, 13, c);
    std::string why;
    std::vector<Mat> ref = run_reference("ConvolutionDepthWise", pd, weights, {in}, &why);
    ASSERT_FALSE(ref.empty()) << why;
    int count = 0;
    const LayerRegistryEntry* rows = layer_registry(&count);
    int tested = 0;
    for (int r = 0; r < count; r++)
    {
        const LayerRegistryEntry& e = rows[r];
        if (std::string(e.type) != "ConvolutionDepthWise" || e.backend != BACKEND_CPU || e.isa == CPU_ISA_NONE
            || !cpu_support_isa(e.isa))
            continue;
        UnlockedPoolAllocator blobs, workspace;
        Option opt;
        opt.num_threads = 2;
        opt.lightmode = true;
        opt.use_fp16_storage = false;
        opt.blob_allocator = &blobs;
        opt.workspace_allocator = &workspace;
        Layer* l = make_layer("ConvolutionDepthWise", BACKEND_CPU, e.isa, pd, weights, opt, &why);
        ASSERT_NE(l, nullptr) << cpu_isa_name(e.isa) << ": " << why;
        tested++;
        for (int pack : {1, 4, 8})
        {
            if (pack > cpu_isa_vector_floats(e.isa))
                break;
            Mat x = in;
            if (pack > 1)
                convert_packing(in, x, pack, opt);
            for (int run = 0; run < 3; run++)
            {
                std::vector<Mat> out(1);
                ASSERT_EQ(run_layer_forward(l, {x}, out, opt), 0) << cpu_isa_name(e.isa) << " pack " << pack;
                const std::string c = compare_mat(to_fp32_pack1(out[0]), ref[0], 1e-3f);
                EXPECT_TRUE(c.empty()) << cpu_isa_name(e.isa) << " pack " << pack << " run " << run << " seed=" << seed()
                                       << ": " << c;
            }
        }
        l->destroy_pipeline(opt);
        delete l;
    }
    EXPECT_GT(tested, 0);
}
