#include "conv_naive.h"
#include "convolution.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace kite;
using namespace kite::test;

struct ConvCase
{
    int w, h, c, outc;
    int kw, kh, dil, stride;
    int pl, pr, pt, pb; // -233 / -234 for SAME
    int bias;
    int act;
    std::vector<float> act_params;
    float pad_value;
};

static void same_pads(int size, int k, int dil, int s, bool lower, int* b, int* e)
{
    int out = (size + s - 1) / s;
    int total = (out - 1) * s + dil * (k - 1) + 1 - size;
    if (total < 0)
        total = 0;
    *b = lower ? total - total / 2 : total / 2;
    *e = total - *b;
}

static std::string run_conv(const ConvCase& cc, const TestLayerFlags& flags = TestLayerFlags())
{
    ParamDict pd;
    const int wsize = cc.outc * cc.c * cc.kw * cc.kh;
    pd.set(0, cc.outc);
    pd.set(1, cc.kw);
    pd.set(11, cc.kh);
    pd.set(2, cc.dil);
    pd.set(3, cc.stride);
    pd.set(4, cc.pl);
    pd.set(15, cc.pr);
    pd.set(14, cc.pt);
    pd.set(16, cc.pb);
    pd.set(18, cc.pad_value);
    pd.set(5, cc.bias);
    pd.set(6, wsize);
    pd.set(9, cc.act);
    if (!cc.act_params.empty())
        pd.set(10, FloatArrayMat(cc.act_params));
    std::vector<Mat> weights;
    weights.push_back(RandomMat(wsize));
    if (cc.bias)
        weights.push_back(RandomMat(cc.outc));
    Mat in = RandomMat(cc.w, cc.h, cc.c, -2.f, 2.f);
    std::vector<Mat> out;
    std::string r = test_layer("Convolution", pd, weights, {in}, flags, &out);
    if (!r.empty())
        return r;
    NaiveConv p;
    p.outc = cc.outc;
    p.k[0] = cc.kw;
    p.k[1] = cc.kh;
    p.dil[0] = p.dil[1] = cc.dil;
    p.stride[0] = p.stride[1] = cc.stride;
    if (cc.pl == -233 || cc.pl == -234)
    {
        same_pads(cc.w, cc.kw, cc.dil, cc.stride, cc.pl == -234, &p.pad0[0], &p.pad1[0]);
        same_pads(cc.h, cc.kh, cc.dil, cc.stride, cc.pl == -234, &p.pad0[1], &p.pad1[1]);
    }
    else
    {
        p.pad0[0] = cc.pl;
        p.pad1[0] = cc.pr;
        p.pad0[1] = cc.pt;
        p.pad1[1] = cc.pb;
    }
    p.pad_value = cc.pad_value;
    p.act = cc.act;
    p.act_params = cc.act_params;
    Dense want = naive_conv(to_dense(in), mat_values(weights[0]), cc.bias ? mat_values(weights[1]) : std::vector<float>(), p);
    return compare_dense(to_dense(out[0]), want, 1e-4f);
}

TEST(Convolution, kernels_strides_dilations)
{
    reseed(1);
    for (int stride : {1, 2, 3})
        for (int k : {1, 2, 3, 5})
            for (int dil : {1, 2})
                for (int bias : {0, 1})
                    KITE_EXPECT_LAYER_OK(run_conv({11, 9, 3, 5, k, k, dil, stride, 1, 1, 1, 1, bias, 0, {}, 0.f}));
    // rectangular kernels, odd sizes
    KITE_EXPECT_LAYER_OK(run_conv({13, 7, 2, 4, 3, 1, 1, 2, 0, 0, 0, 0, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({6, 15, 4, 3, 1, 5, 1, 1, 0, 0, 2, 2, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({1, 1, 7, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({17, 16, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, {}, 0.f}));
}

TEST(Convolution, pads)
{
    reseed(2);
    // asymmetric explicit pads with a pad value
    KITE_EXPECT_LAYER_OK(run_conv({9, 8, 3, 4, 3, 3, 1, 1, 2, 0, 1, 3, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({9, 8, 3, 4, 3, 3, 1, 2, 1, 2, 0, 1, 1, 0, {}, -1.25f}));
    KITE_EXPECT_LAYER_OK(run_conv({7, 7, 2, 3, 3, 3, 2, 1, 2, 2, 2, 2, 0, 0, {}, 0.5f}));
    // SAME_UPPER and SAME_LOWER
    for (int pad : {-233, -234})
        for (int stride : {1, 2, 3})
            for (int k : {2, 3, 4})
            {
                KITE_EXPECT_LAYER_OK(run_conv({10, 9, 3, 4, k, k, 1, stride, pad, pad, pad, pad, 1, 0, {}, 0.f}));
                KITE_EXPECT_LAYER_OK(run_conv({11, 8, 2, 3, k, k, 2, stride, pad, pad, pad, pad, 1, 0, {}, 0.75f}));
            }
}

TEST(Convolution, activations)
{
    reseed(3);
    const std::vector<std::vector<float> > params = {{}, {}, {0.1f}, {-0.5f, 0.7f}, {}, {}, {0.2f, 0.5f}};
    for (int act = 0; act <= 6; act++)
    {
        for (int stride : {1, 2})
            KITE_EXPECT_LAYER_OK(run_conv({9, 7, 3, 5, 3, 3, 1, stride, 1, 1, 1, 1, 1, act, params[act], 0.f}));
        // channels that pack by 8 (arm82's fp16-arithmetic kernel applies the activation itself)
        for (int stride : {1, 2})
            KITE_EXPECT_LAYER_OK(run_conv({9, 7, 8, 16, 3, 3, 1, stride, 1, 1, 1, 1, 1, act, params[act], 0.f}));
    }
}

// channel counts that pack by 4, 8 and 16 on input and output (the x86
// packed GEMM), outputs that pack by nothing, pixel counts that leave a
// partial micro tile, 1x1 as the mobile graphs use it, SAME padding
TEST(Convolution, packed_channels)
{
    reseed(5);
    const int chans[][2] = {{16, 32}, {8, 24}, {12, 20}, {3, 16}, {32, 7}, {48, 40}};
    for (const auto& ch : chans)
    {
        KITE_EXPECT_LAYER_OK(run_conv({9, 7, ch[0], ch[1], 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}));
        KITE_EXPECT_LAYER_OK(run_conv({11, 6, ch[0], ch[1], 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, {}, 0.f}));
        KITE_EXPECT_LAYER_OK(run_conv({10, 9, ch[0], ch[1], 3, 3, 1, 2, -233, -233, -233, -233, 0, 3, {0.f, 6.f}, 0.f}));
    }
    KITE_EXPECT_LAYER_OK(run_conv({13, 12, 16, 16, 5, 3, 2, 1, 2, 1, 0, 3, 1, 2, {0.1f}, 0.5f}));
    KITE_EXPECT_LAYER_OK(run_conv({4, 3, 64, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 4, {}, 0.f}));
    // packed inputs through the im2col GEMM as whole elements: stride 1 with
    // full tiles inside a row (one copy per tap and channel group), dilation
    KITE_EXPECT_LAYER_OK(run_conv({14, 5, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({15, 6, 8, 16, 3, 3, 2, 1, 2, 2, 2, 2, 1, 1, {}, 0.f}));
    // last tiles of 1 and 8 pixels (the 4- and 8-row kernels) with K in two
    // blocks (64 channels x 9 taps: partial sums); one chunk of tiles for two
    // threads with 64 outputs: panels split, partial sums per panel
    KITE_EXPECT_LAYER_OK(run_conv({13, 13, 64, 64, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({10, 8, 64, 32, 3, 3, 1, 2, 1, 1, 1, 1, 1, 0, {}, 0.f}));
}

// 1x1 stride 1 on packed inputs (the x86 GEMM straight on the blob): pixel
// counts that fill whole tiles (14 or 12 pixels with 32 vector registers, 6
// with 16) or leave 1..13 (the narrower tail tiles: 7x7's 49 = 3 x 14 + 7, 16 =
// 14 + 2), several pixel chunks (512 input channels, 121 pixels), output
// counts that leave part of a weight panel, fused activation
TEST(Convolution, conv1x1_packed_input)
{
    reseed(11);
    const int sizes[][2] = {{12, 1}, {5, 5}, {7, 1}, {3, 3}, {13, 2}, {14, 1}, {7, 7}, {4, 4}};
    for (const auto& sz : sizes)
        for (int outc : {8, 40})
            KITE_EXPECT_LAYER_OK(run_conv({sz[0], sz[1], 16, outc, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({11, 11, 512, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 3, {0.f, 6.f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({9, 4, 24, 20, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, {}, 0.f}));
    // 512+ input channels: K in blocks with partial sums (two and three
    // blocks, a block not a multiple of 16, full and tail tiles, a panel of
    // one vector, several chunks)
    KITE_EXPECT_LAYER_OK(run_conv({7, 7, 528, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({5, 3, 1160, 40, 1, 1, 1, 1, 0, 0, 0, 0, 0, 2, {0.1f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({13, 9, 768, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, {}, 0.f}));
    // weights above 1 MB (resnet's 2048 -> 512 on 7x7): larger chunks, the
    // next weight block fetched ahead; the last panel of one vector (280 =
    // 8 x 32 + 24 outputs), the 7-pixel tail tile, 121 pixels (11x11)
    KITE_EXPECT_LAYER_OK(run_conv({7, 7, 1024, 280, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({11, 11, 528, 520, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, {}, 0.f}));
    // with pads (squeezenet's conv10) or a stride (resnet's downsampling
    // branches): the padded blob, or the strided pixels gathered, then the
    // same GEMM
    KITE_EXPECT_LAYER_OK(run_conv({10, 7, 32, 40, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.5f}));
    // zero pads: the GEMM on the unpadded input, border outputs the activated
    // bias (asymmetric pads, no bias, LeakyReLU / sigmoid)
    KITE_EXPECT_LAYER_OK(run_conv({9, 6, 16, 24, 1, 1, 1, 1, 2, 1, 0, 3, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({7, 5, 32, 48, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, {0.1f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({6, 5, 8, 20, 1, 1, 1, 1, 1, 0, 2, 1, 1, 4, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({11, 9, 16, 24, 1, 1, 1, 2, 0, 0, 0, 0, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({13, 12, 8, 16, 1, 1, 1, 3, 1, 0, 2, 0, 1, 2, {0.1f}, -1.f}));
}

// 1x1 stride 1 to outputs that pack by nothing (the pixel-vector kernel of
// conv1x1_planar_cpu.h): full pixel spans, one-vector and scalar tails,
// channel blocks of 6 with 1..5 left over, inputs of every elempack (58 and
// 42 channels: planar; 24, 36, 16: packed, unpacked first), fused activations;
// with pads it stays on the GEMM
TEST(Convolution, conv1x1_planar_output)
{
    reseed(15);
    const int chans[][2] = {{58, 58}, {24, 58}, {36, 42}, {16, 13}, {42, 7}, {8, 255}};
    for (const auto& ch : chans)
    {
        KITE_EXPECT_LAYER_OK(run_conv({23, 7, ch[0], ch[1], 1, 1, 1, 1, 0, 0, 0, 0, 1, 2, {0.1f}, 0.f}));
        KITE_EXPECT_LAYER_OK(run_conv({5, 3, ch[0], ch[1], 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, {}, 0.f}));
    }
    KITE_EXPECT_LAYER_OK(run_conv({64, 2, 20, 11, 1, 1, 1, 1, 0, 0, 0, 0, 1, 3, {-0.5f, 0.5f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({9, 6, 24, 58, 1, 1, 1, 1, 1, 0, 1, 2, 1, 0, {}, 0.f}));
}

// a first layer on an unpacked 3-channel input: output rows of 12 or more
// pixels (AVX-512's micro tile; 6 or 8 elsewhere), so whole tiles are packed
// as row vectors (strides 1 and 2) next to tiles that wrap a row
TEST(Convolution, unpacked_input_rows)
{
    reseed(12);
    KITE_EXPECT_LAYER_OK(run_conv({29, 6, 3, 16, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({27, 5, 3, 8, 7, 7, 1, 2, 3, 3, 3, 3, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({18, 4, 3, 32, 3, 3, 2, 1, 2, 2, 1, 1, 0, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({27, 3, 2, 16, 1, 1, 1, 2, 0, 0, 0, 0, 1, 0, {}, 0.f}));
}

// the direct kernel of conv_direct_planar_cpu.h (1-3 planar input channels
// into outputs that pack by 4, 8 or 16): strides 1, 2 and 4, 3x3 / 5x5 / 7x7 /
// 1x1 / 3x1 kernels, dilation, asymmetric pads and a pad value, rows of 8+
// pixels with 2- and 1-pixel tails, every fused activation; 20 channels pack
// by 4 only, 24 by 8, 48 by 16 (on AVX-512)
TEST(Convolution, direct_planar_input)
{
    reseed(31);
    KITE_EXPECT_LAYER_OK(run_conv({37, 9, 3, 8, 3, 3, 1, 2, 1, 1, 1, 1, 1, 2, {0.1f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({35, 7, 3, 24, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({33, 6, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({31, 8, 3, 32, 3, 3, 1, 2, 0, 1, 0, 1, 1, 6, {0.2f, 0.5f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({23, 11, 3, 24, 5, 5, 1, 2, 1, 2, 1, 2, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({30, 7, 3, 20, 3, 3, 2, 1, 2, 2, 2, 2, 1, 3, {-0.5f, 0.5f}, 0.7f}));
    KITE_EXPECT_LAYER_OK(run_conv({41, 5, 2, 48, 3, 1, 1, 1, 1, 1, 0, 0, 1, 4, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({19, 9, 1, 16, 7, 7, 1, 4, 3, 3, 3, 3, 1, 5, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({13, 4, 3, 8, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({3, 3, 3, 8, 3, 3, 1, 2, 1, 1, 1, 1, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({16, 16, 3, 8, 3, 3, 1, 2, -233, -233, -233, -233, 1, 0, {}, 0.f}));
}

// SAME output size is ceil(size / stride), and explicit pads the textbook formula
TEST(Convolution, output_size_property)
{
    reseed(4);
    for (int w : {5, 6, 7, 8, 13})
        for (int s : {1, 2, 3})
        {
            ParamDict pd;
            pd.set(0, 2);
            pd.set(1, 3);
            pd.set(3, s);
            pd.set(4, -233);
            pd.set(6, 2 * 1 * 9);
            std::string why;
            std::vector<Mat> out = run_reference("Convolution", pd, {RandomMat(18)}, {RandomMat(w, w + 1, 1)}, &why);
            ASSERT_EQ(out.size(), 1u) << why;
            EXPECT_EQ(out[0].w, (w + s - 1) / s);
            EXPECT_EQ(out[0].h, (w + 1 + s - 1) / s);
        }
}

// a 1-D input with a 1x1 kernel is an inner product (output dims 1)
TEST(Convolution, vector_input_is_inner_product)
{
    reseed(5);
    ParamDict pd;
    pd.set(0, 6);
    pd.set(1, 1);
    pd.set(5, 1);
    pd.set(6, 6 * 10);
    Mat w = RandomMat(60), b = RandomMat(6), x = RandomMat(10);
    std::vector<Mat> out;
    KITE_EXPECT_LAYER_OK(test_layer("Convolution", pd, {w, b}, {x}, TestLayerFlags(), &out));
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].dims, 1);
    ASSERT_EQ(out[0].w, 6);
    for (int p = 0; p < 6; p++)
    {
        float s = b[p];
        for (int i = 0; i < 10; i++)
            s += w[p * 10 + i] * x[i];
        EXPECT_NEAR(out[0][p], s, 1e-5f);
    }
}

static std::string run_conv_int8(int w, int h, int c, int outc, int k, int stride, int pad, int act, const std::vector<float>& ap,
                                 bool s8_weights, int scale_term, bool zero_scale)
{
    ParamDict pd;
    const int wsize = outc * c * k * k;
    pd.set(0, outc);
    pd.set(1, k);
    pd.set(3, stride);
    pd.set(4, pad);
    pd.set(5, 1);
    pd.set(6, wsize);
    pd.set(8, scale_term);
    pd.set(9, act);
    if (!ap.empty())
        pd.set(10, FloatArrayMat(ap));
    std::vector<Mat> weights;
    Mat wt = s8_weights ? RandomS8Mat(wsize) : RandomMat(wsize);
    weights.push_back(wt);
    weights.push_back(RandomMat(outc));
    Mat wscales = RandomMat(outc, 50.f, 150.f);
    if (zero_scale)
        wscales[1] = 0.f;
    weights.push_back(wscales);
    Mat bscale = RandomMat(1, 60.f, 120.f);
    weights.push_back(bscale);
    Mat tscale = RandomMat(1, 5.f, 20.f);
    if (scale_term > 100)
        weights.push_back(tscale);
    Mat in = RandomMat(w, h, c);
    std::vector<Mat> out;
    // no fp16-storage variants (the CPU int8 rows take fp32 only): an fp16
    // input is rounded before it is quantized, which moves int8 values by a
    // step that no tolerance describes; the fp16 graph runs cover GPU int8
    TestLayerFlags flags;
    flags.test_fp16 = false;
    // the int8 kernels are bit-identical to the reference up to Clip (the
    // vector epilogue); other activations run scalar in a TU that may
    // contract into FMAs, which can move the last bit
    if (act <= 3)
        flags.epsilon = 0.f;
    std::string r = test_layer("Convolution", pd, weights, {in}, flags, &out);
    if (!r.empty())
        return r;
    if (scale_term > 100 && out[0].elemsize != 1)
        return "requantized output is not int8";
    NaiveConv p;
    p.outc = outc;
    p.k[0] = p.k[1] = k;
    p.stride[0] = p.stride[1] = stride;
    for (int a = 0; a < 2; a++)
        p.pad0[a] = p.pad1[a] = pad;
    p.act = act;
    p.act_params = ap;
    p.int8 = true;
    p.bottom_scale = bscale[0];
    p.weight_scales = mat_values(wscales);
    p.requant = scale_term > 100;
    p.top_scale = tscale[0];
    Dense want = naive_conv(to_dense(in), mat_values(wt), mat_values(weights[1]), p, s8_weights);
    return compare_dense(to_dense(out[0]), want, p.requant ? 1.01f : 1e-4f);
}

TEST(Convolution, int8)
{
    reseed(6);
    const std::vector<std::vector<float> > params = {{}, {}, {0.1f}, {-0.5f, 0.7f}, {}, {}, {0.2f, 0.5f}};
    for (bool s8 : {true, false})
        for (int stride : {1, 2})
            for (int k : {1, 3})
                KITE_EXPECT_LAYER_OK(run_conv_int8(9, 8, 3, 4, k, stride, k / 2, 0, {}, s8, 1, false));
    for (int act = 0; act <= 6; act++)
        KITE_EXPECT_LAYER_OK(run_conv_int8(7, 6, 2, 3, 3, 1, 1, act, params[act], true, 1, false));
    // a zero weight scale gives bias only (ncnn's rule)
    KITE_EXPECT_LAYER_OK(run_conv_int8(7, 6, 2, 3, 3, 1, 1, 0, {}, false, 1, true));
    // requantized int8 output (int8_scale_term > 100): within one step of rounding
    KITE_EXPECT_LAYER_OK(run_conv_int8(7, 6, 2, 3, 3, 1, 1, 1, {}, true, 101, false));
    // more output channels than one x86 int8 panel, odd K, partial pixel tiles
    KITE_EXPECT_LAYER_OK(run_conv_int8(11, 5, 35, 40, 3, 2, 1, 1, {}, true, 101, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(9, 7, 33, 70, 1, 1, 0, 0, {}, false, 1, false));
    // the GPUs' packed int8 kernels on inputs of elempack 1, 4 and 8, output
    // quads cut short (7 channels), input quads padded (5 channels)
    KITE_EXPECT_LAYER_OK(run_conv_int8(9, 7, 8, 12, 3, 1, 1, 1, {}, true, 101, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(10, 6, 16, 7, 1, 2, 0, 0, {}, false, 1, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(7, 9, 5, 6, 3, 2, 1, 2, {0.1f}, true, 1, false));
}

TEST(Convolution, dynamic_weight)
{
    reseed(7);
    ParamDict pd;
    pd.set(0, 4);
    pd.set(1, 3);
    pd.set(4, 1);
    pd.set(5, 1);
    pd.set(19, 1);
    Mat in = RandomMat(8, 7, 3);
    Mat wt = RandomMat(3, 3, 3, 4); // kw, kh, inch, outch
    Mat b = RandomMat(4);
    std::string why;
    std::vector<Mat> out = run_reference("Convolution", pd, {}, {in, wt, b}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    NaiveConv p;
    p.outc = 4;
    p.k[0] = p.k[1] = 3;
    p.pad0[0] = p.pad0[1] = p.pad1[0] = p.pad1[1] = 1;
    Dense wd = to_dense(wt);
    Dense want = naive_conv(to_dense(in), wd.v, mat_values(b), p);
    KITE_EXPECT_LAYER_OK(compare_dense(to_dense(out[0]), want, 1e-4f));
}

TEST(Convolution, rejects_bad_params_and_shapes)
{
    reseed(8);
    std::string why;
    auto make = [](int outc, int k, int stride, int dil, int wsize, int pad) {
        ParamDict pd;
        pd.set(0, outc);
        pd.set(1, k);
        pd.set(3, stride);
        pd.set(2, dil);
        pd.set(6, wsize);
        pd.set(4, pad);
        return pd;
    };
    // weight_data_size not a multiple of num_output * kernel
    EXPECT_TRUE(run_reference("Convolution", make(4, 3, 1, 1, 35, 0), {RandomMat(35)}, {RandomMat(5, 5, 1)}, &why).empty());
    // zero kernel / stride / dilation / num_output
    EXPECT_TRUE(run_reference("Convolution", make(4, 0, 1, 1, 36, 0), {RandomMat(36)}, {RandomMat(5, 5, 1)}, &why).empty());
    EXPECT_TRUE(run_reference("Convolution", make(4, 3, 0, 1, 36, 0), {RandomMat(36)}, {RandomMat(5, 5, 1)}, &why).empty());
    EXPECT_TRUE(run_reference("Convolution", make(4, 3, 1, 0, 36, 0), {RandomMat(36)}, {RandomMat(5, 5, 1)}, &why).empty());
    EXPECT_TRUE(run_reference("Convolution", make(0, 3, 1, 1, 36, 0), {RandomMat(36)}, {RandomMat(5, 5, 1)}, &why).empty());
    // a negative pad that is not SAME
    EXPECT_TRUE(run_reference("Convolution", make(4, 3, 1, 1, 36, -1), {RandomMat(36)}, {RandomMat(5, 5, 1)}, &why).empty());
    // input channels that do not match the weights
    EXPECT_TRUE(run_reference("Convolution", make(4, 3, 1, 1, 36, 0), {RandomMat(36)}, {RandomMat(5, 5, 2)}, &why).empty());
    // input smaller than the kernel
    EXPECT_TRUE(run_reference("Convolution", make(4, 3, 1, 1, 36, 0), {RandomMat(36)}, {RandomMat(2, 5, 1)}, &why).empty());
    // a valid one works
    EXPECT_FALSE(run_reference("Convolution", make(4, 3, 1, 1, 36, 0), {RandomMat(36)}, {RandomMat(5, 5, 1)}, &why).empty()) << why;
}

// The int8 fast path (common/conv_int8_planes.h, used by Convolution's int8
// forward) must give exactly conv_forward_int8's outputs: same int32 sums,
// same epilogue. Checked bit for bit against that independent direct loop
// over geometries with borders, strides, dilation, cropping (negative pads),
// a non-zero pad value, channel counts that are not multiples of 4, fp32 and
// requantized outputs, and both numerics modes.
#include "../../layer/common/conv_int8_planes.h"

TEST(Convolution, int8_planes_equal_reference_kernel)
{
    reseed(61);
    struct G
    {
        int w, h, c, outc, kw, kh, sw, sh, dw, dh, pl, pt;
    } geos[] = {
        {9, 8, 3, 5, 1, 1, 1, 1, 1, 1, 0, 0},   {9, 8, 3, 5, 3, 3, 1, 1, 1, 1, 1, 1},  {11, 7, 2, 6, 3, 3, 2, 2, 1, 1, 1, 1},
        {10, 9, 4, 7, 5, 3, 1, 2, 1, 1, 2, 1},  {12, 12, 3, 4, 3, 3, 1, 1, 2, 2, 2, 2}, {8, 8, 5, 9, 7, 7, 2, 2, 1, 1, 3, 3},
        {9, 9, 2, 3, 3, 3, 1, 1, 1, 1, -1, -1}, {13, 5, 3, 2, 1, 3, 3, 1, 1, 2, 0, 2}, {6, 6, 1, 1, 3, 3, 4, 4, 1, 1, 0, 0},
    };
    for (const G& t : geos)
        for (int numerics : {0, CONV_INT8_FMA_BIAS | CONV_INT8_ROUND_ADDHALF})
            for (int requant : {0, 1})
                for (int padv : {0, -3})
                {
                    ConvGeometry g;
                    g.kernel_w = t.kw;
                    g.kernel_h = t.kh;
                    g.stride_w = t.sw;
                    g.stride_h = t.sh;
                    g.dilation_w = t.dw;
                    g.dilation_h = t.dh;
                    g.pad_left = t.pl;
                    g.pad_top = t.pt;
                    const int outw = (t.w + 2 * t.pl - ((t.kw - 1) * t.dw + 1)) / t.sw + 1;
                    const int outh = (t.h + 2 * t.pt - ((t.kh - 1) * t.dh + 1)) / t.sh + 1;
                    ASSERT_GT(outw, 0);
                    ASSERT_GT(outh, 0);
                    Mat in(t.w, t.h, t.c, (size_t)1u);
                    for (int q = 0; q < t.c; q++)
                    {
                        signed char* p = (signed char*)in.channel(q).data;
                        Mat r = RandomS8Mat(t.w * t.h);
                        memcpy(p, r.data, (size_t)t.w * t.h);
                    }
                    Mat wt = RandomS8Mat(t.outc * t.c * t.kw * t.kh);
                    std::vector<signed char> w8((const signed char*)wt.data, (const signed char*)wt.data + wt.w);
                    Mat bias = RandomMat(t.outc);
                    Mat sin = RandomMat(t.outc, 1e-4f, 2e-3f);
                    Mat sout = RandomMat(t.outc, 5.f, 20.f);
                    const Activation act(1, Mat()); // ReLU
                    const size_t es = requant ? 1u : 4u;
                    Mat o1(outw, outh, t.outc, es), o2(outw, outh, t.outc, es);
                    ConvView vin = conv_view_spatial(in);
                    conv_forward_int8(vin, conv_view_spatial(o1), w8.data(), bias, sin, requant ? (const float*)sout : nullptr, 1, g,
                                      (signed char)padv, act, 1, numerics);
                    ASSERT_TRUE(conv_forward_int8_planes(vin, conv_view_spatial(o2), w8.data(), bias, sin,
                                                         requant ? (const float*)sout : nullptr, g, (signed char)padv, act, 2, numerics));
                    for (int q = 0; q < t.outc; q++)
                        ASSERT_EQ(memcmp(o1.channel(q).data, o2.channel(q).data, (size_t)outw * outh * es), 0)
                            << "geometry " << (&t - geos) << " channel " << q << " numerics " << numerics << " requant " << requant
                            << " pad " << padv;
                }
}

// a dilation at least the map's size with "same" zero padding (deeplabv3's
// ASPP, dilation 36 on 14x14): the CPU rows run the 1x1 convolution of the
// centre taps; odd sizes, 3x3 and 5x5, activations, planar and packed
// channels; and the same layer on a map larger than its dilation
TEST(Convolution, dilation_beyond_the_map)
{
    reseed(21);
    KITE_EXPECT_LAYER_OK(run_conv({7, 6, 16, 24, 3, 3, 8, 1, 8, 8, 8, 8, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({5, 5, 12, 20, 3, 3, 5, 1, 5, 5, 5, 5, 0, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({4, 3, 8, 7, 5, 5, 4, 1, 8, 8, 8, 8, 1, 3, {0.f, 6.f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({11, 9, 16, 24, 3, 3, 8, 1, 8, 8, 8, 8, 1, 1, {}, 0.f}));
}

// dilated convolutions on maps where most taps read only zero padding
// (deeplabv3's ASPP, dilation 12 on 14x14): the packed GEMM runs each tile of
// output pixels on the taps it reads, in runs of consecutive taps with partial
// sums between them. Tiles whose tap sets differ, K in several blocks (64 and
// 96 channels: a run cut at a block's end), 5x5 and 3x3, stride 2,
// asymmetric pads, outputs that fill part of a weight panel, activations; a
// non-zero pad value (the padding counts: nothing skipped) as the control
TEST(Convolution, dilated_taps_in_padding)
{
    reseed(23);
    KITE_EXPECT_LAYER_OK(run_conv({14, 14, 64, 32, 3, 3, 12, 1, 12, 12, 12, 12, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({13, 11, 96, 40, 3, 3, 6, 1, 6, 6, 6, 6, 1, 3, {0.f, 6.f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({9, 10, 16, 24, 5, 5, 4, 1, 8, 8, 8, 8, 0, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({15, 12, 32, 16, 3, 3, 7, 2, 7, 5, 3, 7, 1, 2, {0.1f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({10, 7, 24, 20, 3, 3, 5, 1, 5, 5, 5, 5, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({6, 5, 8, 7, 3, 3, 4, 1, 4, 4, 4, 4, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({14, 14, 64, 32, 3, 3, 12, 1, 12, 12, 12, 12, 1, 1, {}, 0.5f}));
}

// 3x3 stride 1 on packed channels with enough output tiles for the x86
// Winograd path: F(6,3) (without a shape hint: at most 32 channels in and
// out) and F(4,3) (more: 8 -> 40, 16 -> 128, densenet's 128 -> 32),
// partial tiles, explicit/SAME/asymmetric pads with a pad value, outputs that
// pack by nothing, activations
TEST(Convolution, winograd_3x3s1)
{
    reseed(9);
    // Vulkan: Winograd F(2,3) also on a CPU device (lavapipe runs the direct
    // shader by default); read when the layers are made
    setenv("KITE_VULKAN_WINOGRAD", "on", 1);
    // and its weight layouts built in several parts (over output channels)
    setenv("KITE_VULKAN_FILL_PART_BYTES", "8192", 1);
    KITE_EXPECT_LAYER_OK(run_conv({24, 22, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({19, 23, 8, 24, 3, 3, 1, 1, 0, 2, 1, 0, 1, 2, {0.1f}, 0.5f}));
    KITE_EXPECT_LAYER_OK(run_conv({21, 20, 32, 12, 3, 3, 1, 1, -233, -233, -233, -233, 0, 3, {0.f, 6.f}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({26, 17, 16, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, {}, 0.f}));
    // K = 1152 terms of up to 2 in magnitude (sums of about 23): fp16
    // storage rounds the inputs and weights, and arm82's fp16 arithmetic adds
    // 8-term fp16 partial sums (conv_fp16_arm.h), which moves outputs near 0
    // by up to about 0.05 here
    TestLayerFlags wide;
    wide.epsilon_fp16 = 3e-2f;
    KITE_EXPECT_LAYER_OK(run_conv({14, 13, 128, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}, wide));
    // output elempacks narrower than the GEMM's vectors (20 -> 4, 40 -> 8)
    KITE_EXPECT_LAYER_OK(run_conv({18, 17, 16, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({17, 18, 8, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    // a map in several tile blocks (AVX-512: 4 groups of 8 tiles, 2 blocks;
    // one thread runs them in turn, two take one each)
    KITE_EXPECT_LAYER_OK(run_conv({25, 25, 16, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    // the same for F(6,3) (49 tiles of 6x6) and densenet121's 128 -> 32 on
    // F(4,3) with a 7x7 map (4 tiles: without a hint Winograd runs every map)
    KITE_EXPECT_LAYER_OK(run_conv({37, 37, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}));
    KITE_EXPECT_LAYER_OK(run_conv({7, 7, 128, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, {}, 0.f}, wide));
    unsetenv("KITE_VULKAN_WINOGRAD");
    unsetenv("KITE_VULKAN_FILL_PART_BYTES");
}

// a shape hint that gives F(6,3) / F(4,3) too few tiles: F(2,3) (5x5: 9
// tiles, partial ones at the edges), the im2col GEMM where the input is
// smaller than the hint (3x3: 4 tiles)
TEST(Convolution, winograd_f23_small_maps)
{
    reseed(13);
    TestLayerFlags flags;
    flags.top_shapes.push_back(Mat(5, 5, 24));
    KITE_EXPECT_LAYER_OK(run_conv({5, 5, 16, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, {}, 0.f}, flags));
    KITE_EXPECT_LAYER_OK(run_conv({7, 6, 16, 24, 3, 3, 1, 1, 1, 1, 0, 0, 1, 0, {}, 0.f}, flags));
    KITE_EXPECT_LAYER_OK(run_conv({3, 3, 16, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, {}, 0.f}, flags));
}

// int8 weights with channel counts that pack (the x86 layer then takes packed
// fp32 or int8 inputs and gives packed fp32 outputs), 1x1 and 3x3, fp32 and
// requantized outputs
TEST(Convolution, int8_packed_channels)
{
    reseed(10);
    KITE_EXPECT_LAYER_OK(run_conv_int8(9, 7, 16, 32, 1, 1, 0, 1, {}, true, 2, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(8, 9, 32, 48, 3, 1, 1, 1, {}, true, 2, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(10, 7, 24, 16, 3, 2, 1, 0, {}, false, 102, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(7, 6, 16, 20, 3, 1, 1, 2, {0.1f}, true, 102, false));
    // 1x1 stride 1 on packed inputs: the VNNI rows read the quantized u8 blob
    // as packed (input elempack 16 / 8 / 4 as quads 4 / 2 / 1 per pixel),
    // pixel counts that leave partial tiles, a last panel of one vector,
    // outputs packed by 8 and 4, a zero weight scale, activations past Clip
    KITE_EXPECT_LAYER_OK(run_conv_int8(33, 9, 64, 96, 1, 1, 0, 1, {}, true, 2, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(13, 11, 24, 40, 1, 1, 0, 3, {0.f, 6.f}, true, 2, false));
    KITE_EXPECT_LAYER_OK(run_conv_int8(17, 5, 12, 20, 1, 1, 0, 0, {}, false, 1, true));
    KITE_EXPECT_LAYER_OK(run_conv_int8(7, 7, 48, 16, 1, 1, 0, 4, {}, true, 2, false));
}

// one int8 convolution against the reference at tolerance 0 (every backend
// row, every input elempack): kernel kw x kh, stride, dilation, pads
// left/right/top/bottom with a pad value, weights over the full int8 range
// (-128 included), an fp32 input or an int8 one (a requantized blob, which
// the GPUs read without quantizing)
struct Int8ConvCase
{
    int w, h, c, outc;
    int kw, kh, sw, sh, dw, dh;
    int pl, pr, pt, pb;
    float pad_value;
    int scale_term, act;
    bool int8_input;
    // int8 input of 127 everywhere and weights of 126 or 127: int32 sums
    // past 2^24, which a float accumulator alone would round
    bool saturated = false;
};

static void int8_conv_layer(const Int8ConvCase& t, ParamDict& pd, std::vector<Mat>& weights)
{
    const int wsize = t.outc * t.c * t.kw * t.kh;
    pd.set(Convolution::PARAM_NUM_OUTPUT, t.outc);
    pd.set(Convolution::PARAM_KERNEL_W, t.kw);
    pd.set(Convolution::PARAM_KERNEL_H, t.kh);
    pd.set(Convolution::PARAM_STRIDE_W, t.sw);
    pd.set(Convolution::PARAM_STRIDE_H, t.sh);
    pd.set(Convolution::PARAM_DILATION_W, t.dw);
    pd.set(Convolution::PARAM_DILATION_H, t.dh);
    pd.set(Convolution::PARAM_PAD_LEFT, t.pl);
    pd.set(Convolution::PARAM_PAD_RIGHT, t.pr);
    pd.set(Convolution::PARAM_PAD_TOP, t.pt);
    pd.set(Convolution::PARAM_PAD_BOTTOM, t.pb);
    pd.set(Convolution::PARAM_PAD_VALUE, t.pad_value);
    pd.set(Convolution::PARAM_BIAS_TERM, 1);
    pd.set(Convolution::PARAM_WEIGHT_DATA_SIZE, wsize);
    pd.set(Convolution::PARAM_INT8_SCALE_TERM, t.scale_term);
    pd.set(Convolution::PARAM_ACTIVATION_TYPE, t.act);
    weights = {RandomS8Mat(wsize, t.saturated ? 126 : -128, 127), RandomMat(t.outc), RandomMat(t.outc, 0.5f, 3.f),
               RandomMat(1, 60.f, 120.f)};
    if (t.scale_term > 100)
        weights.push_back(RandomMat(1, 0.5f, 2.f));
}

static std::string run_conv_int8_case(const Int8ConvCase& t)
{
    ParamDict pd;
    std::vector<Mat> weights;
    int8_conv_layer(t, pd, weights);
    // h == 0: a vector of c values (a 1x1 kernel makes it an inner product)
    Mat in = t.h == 0 ? RandomMat(t.c) : RandomMat(t.w, t.h, t.c);
    if (t.int8_input)
    {
        Mat q(t.w, t.h, t.c, (size_t)1u);
        for (int ch = 0; ch < t.c; ch++)
        {
            signed char* d = q.channel(ch);
            for (int i = 0; i < t.w * t.h; i++)
                d[i] = t.saturated ? 127 : (signed char)((int)(in.channel(ch)[i] * 127.f));
        }
        in = q;
    }
    TestLayerFlags flags;
    flags.test_fp16 = false;
    flags.epsilon = 0.f;
    return test_layer("Convolution", pd, weights, {in}, flags);
}

// x86 VNNI's tiles of 16 / 32 output pixels crossing output rows: gathered
// a row run at a time (stride 1 and 2, dilation, pads on one side, runs cut
// by the last tile), and the byte gather where a tile holds too many rows
// (width 4) or the stride is 3; fp32 and requantized int8 outputs, planar
// (7, 20, 126 channels) and packed (16, 24, 48)
TEST(Convolution, int8_tiles_across_rows)
{
    reseed(19);
    const Int8ConvCase cases[] = {
        {37, 9, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 2, 0, false},
        {37, 5, 12, 126, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 2, 1, false},
        {41, 7, 9, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0.f, 102, 1, false},
        {23, 6, 8, 24, 3, 3, 1, 1, 2, 2, 2, 0, 1, 2, -3.f, 2, 0, true},
        {19, 11, 3, 20, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, 0.f, 102, 1, false},
        {18, 18, 16, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 2, 0, false},
        {4, 13, 8, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 2, 0, false},
        {29, 7, 8, 16, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0.f, 102, 0, true},
    };
    for (const Int8ConvCase& t : cases)
    {
        SCOPED_TRACE("case " + std::to_string(&t - cases) + " (seed 19)");
        KITE_EXPECT_LAYER_OK(run_conv_int8_case(t));
    }
}

// the GPUs' int8 convolution paths (Vulkan: int8conv_gemm.comp's 64 x 64
// and 32 x 32 tiles with and without split K, and int8conv_q.comp; OpenCL: conv2d_int8_gemm with
// the same tiles and splits, conv2d_int8_x4 and conv2d_int8): K long enough to flush the
// float partial sums into int32 several times (128 channels x 9 taps),
// partial tiles in both directions, 1x1 with stride, kxk with stride,
// dilation, asymmetric pads and a pad value, odd channel counts (quads
// padded on both sides), int8 inputs, requantized outputs. Vulkan's GEMM in
// both variants: packed integer dot products (int8conv_gemm_dot4, lavapipe's
// default; KITE_VULKAN_INT8_DOT=1) and float partial sums (=0), each with
// both tile sizes, with and without splits; the kernel path says which ran
TEST(Convolution, int8_gpu_paths)
{
    reseed(14);
    const Int8ConvCase cases[] = {
        {9, 7, 128, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 2, 1, false},
        {11, 13, 33, 70, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 0.f, 2, 0, false},
        {13, 10, 24, 36, 3, 3, 2, 1, 2, 1, 2, 0, 1, 2, -3.f, 102, 1, false},
        {10, 9, 5, 7, 5, 3, 1, 2, 1, 2, 2, 1, 2, 2, 0.f, 2, 2, false},
        {9, 9, 64, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0.f, 102, 1, true},
        {71, 3, 16, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0.f, 2, 0, true},
        {5, 4, 136, 12, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0.f, 2, 0, true, true},
        {1, 0, 37, 10, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0.f, 2, 1, false},
    };
    // (tile size, K splits): the default choice (on a GPU small layers take
    // 32 x 32 tiles and 2 splits where K is long; lavapipe 64 x 64, no
    // split), each tile size without and with uneven splits
    // (tile size, K splits, KITE_VULKAN_INT8_DOT)
    const char* modes[][3] = {{"", "", ""},    {"16", "1", "1"}, {"8", "1", "0"},  {"16", "3", "0"}, {"8", "5", "1"},
                              {"", "", "0"},   {"direct", "", ""}, {"x4", "", ""}};
    bool dot_untested = true;
    for (const auto& ms : modes)
    {
        const char* mode = ms[0];
        if (*mode)
            setenv("KITE_VULKAN_INT8GEMM", mode, 1);
        if (*ms[1])
            setenv("KITE_VULKAN_INT8SPLITK", ms[1], 1);
        if (*ms[2])
            setenv("KITE_VULKAN_INT8_DOT", ms[2], 1);
        if (*ms[2])
        {
            // which GEMM variant the layer takes (a device without the dot
            // product, or Vulkan, skips the dot cases' check)
            ParamDict pd;
            std::vector<Mat> weights;
            int8_conv_layer(cases[0], pd, weights);
            const std::string path = gpu_kernel_path("Convolution", BACKEND_VULKAN, pd, weights);
            if (ms[2][0] == '0' && path != "-")
                EXPECT_EQ(path, "int8-gemm") << "KITE_VULKAN_INT8_DOT=0";
            if (ms[2][0] == '1' && path != "-")
            {
                EXPECT_TRUE(path == "int8-dot4" || path == "int8-gemm") << path;
                dot_untested = dot_untested && path != "int8-dot4";
            }
        }
        // OpenCL: conv2d_int8_gemm with the same tile sizes and splits, conv2d_int8_x4 ("x4") and conv2d_int8
        if (*mode)
            setenv("KITE_OPENCL_INT8CONV", mode, 1);
        if (*ms[1])
            setenv("KITE_OPENCL_INT8SPLITK", ms[1], 1);
        for (const Int8ConvCase& t : cases)
        {
            // the forced modes: the kxk, odd-channel, int8-input and long-K cases
            const size_t i = &t - cases;
            if (*mode && (i == 1 || i == 5 || i == 7))
                continue;
            SCOPED_TRACE(std::string("KITE_VULKAN_INT8GEMM=") + mode + " KITE_VULKAN_INT8SPLITK=" + ms[1] +
                         " KITE_VULKAN_INT8_DOT=" + ms[2] + " case " + std::to_string(&t - cases));
            KITE_EXPECT_LAYER_OK(run_conv_int8_case(t));
        }
        unsetenv("KITE_VULKAN_INT8GEMM");
        unsetenv("KITE_VULKAN_INT8SPLITK");
        unsetenv("KITE_VULKAN_INT8_DOT");
        unsetenv("KITE_OPENCL_INT8CONV");
        unsetenv("KITE_OPENCL_INT8SPLITK");
    }
    if (dot_untested)
        printf("int8_gpu_paths: no Vulkan device with an integer dot product here: int8conv_gemm_dot4 untested\n");
}
