#include "conv_naive.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

struct DeconvCase
{
    const char* type;
    int w, h, c, outc, group;
    int k, dil, stride;
    int pl, pr, pt, pb;
    int opad_w, opad_h;
    int output_w, output_h;
    int act;
};

static std::string run_deconv(const DeconvCase& dc)
{
    ParamDict pd;
    const int wsize = dc.outc * (dc.c / dc.group) * dc.k * dc.k;
    pd.set(0, dc.outc);
    pd.set(1, dc.k);
    pd.set(2, dc.dil);
    pd.set(3, dc.stride);
    pd.set(4, dc.pl);
    pd.set(15, dc.pr);
    pd.set(14, dc.pt);
    pd.set(16, dc.pb);
    pd.set(18, dc.opad_w);
    pd.set(19, dc.opad_h);
    pd.set(20, dc.output_w);
    pd.set(21, dc.output_h);
    pd.set(5, 1);
    pd.set(6, wsize);
    if (dc.group != 1)
        pd.set(7, dc.group);
    pd.set(9, dc.act);
    const std::vector<float> ap = dc.act == 2 ? std::vector<float>{0.1f} : dc.act == 3 ? std::vector<float>{-0.5f, 0.5f}
                                  : dc.act == 6 ? std::vector<float>{0.2f, 0.5f} : std::vector<float>();
    if (!ap.empty())
        pd.set(10, FloatArrayMat(ap));
    std::vector<Mat> weights = {RandomMat(wsize), RandomMat(dc.outc)};
    Mat in = RandomMat(dc.w, dc.h, dc.c);
    std::vector<Mat> out;
    std::string r = test_layer(dc.type, pd, weights, {in}, TestLayerFlags(), &out);
    if (!r.empty())
        return r;
    NaiveConv p;
    p.outc = dc.outc;
    p.group = dc.group;
    p.k[0] = p.k[1] = dc.k;
    p.dil[0] = p.dil[1] = dc.dil;
    p.stride[0] = p.stride[1] = dc.stride;
    p.act = dc.act;
    p.act_params = ap;
    const int opad[3] = {dc.opad_w, dc.opad_h, 0};
    if (dc.pl == -233 || dc.pl == -234)
    {
        // cut the full output down to output_w/h, the odd pixel at the end (UPPER) or start (LOWER)
        const int full[2] = {(dc.w - 1) * dc.stride + dc.dil * (dc.k - 1) + 1 + dc.opad_w, (dc.h - 1) * dc.stride + dc.dil * (dc.k - 1) + 1 + dc.opad_h};
        const int want[2] = {dc.output_w, dc.output_h};
        for (int a = 0; a < 2; a++)
        {
            int cut = full[a] - want[a];
            p.pad0[a] = dc.pl == -233 ? cut / 2 : (cut + 1) / 2;
            p.pad1[a] = cut - p.pad0[a];
        }
    }
    else
    {
        p.pad0[0] = dc.pl;
        p.pad1[0] = dc.pr;
        p.pad0[1] = dc.pt;
        p.pad1[1] = dc.pb;
    }
    Dense want = naive_deconv(to_dense(in), mat_values(weights[0]), mat_values(weights[1]), p, opad);
    return compare_dense(to_dense(out[0]), want, 1e-4f);
}

TEST(Deconvolution, kernels_strides_pads)
{
    reseed(1);
    for (int stride : {1, 2, 3})
        for (int k : {1, 2, 3, 4})
            for (int dil : {1, 2})
                KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 4, 3, 4, 1, k, dil, stride, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 4, 3, 4, 1, 3, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 6, 2, 3, 1, 4, 1, 2, 1, 2, 0, 3, 0, 0, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 6, 2, 3, 1, 3, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 4, 5, 2, 3, 1, 5, 1, 3, 2, 2, 2, 2, 2, 1, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 6, 5, 16, 8, 1, 4, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0}));
    // the x86 GEMM + col2im: many row panels (21 * 9), K = 40, cut borders, output pad
    KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 13, 11, 40, 21, 1, 3, 1, 2, 1, 2, 1, 0, 1, 0, 0, 0, 1}));
}

TEST(Deconvolution, same_with_output_size)
{
    reseed(2);
    for (int pad : {-233, -234})
    {
        KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 4, 3, 4, 1, 3, 1, 2, pad, pad, pad, pad, 0, 0, 10, 8, 0}));
        KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 6, 5, 2, 3, 1, 4, 1, 2, pad, pad, pad, pad, 0, 0, 11, 9, 0}));
        KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 4, 2, 3, 1, 4, 1, 3, pad, pad, pad, pad, 0, 0, 13, 11, 0}));
    }
}

TEST(Deconvolution, activations)
{
    reseed(3);
    for (int act = 0; act <= 6; act++)
        KITE_EXPECT_LAYER_OK(run_deconv({"Deconvolution", 5, 4, 3, 4, 1, 3, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, act}));
}

TEST(DeconvolutionDepthWise, groups)
{
    reseed(4);
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 4, 4, 4, 3, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 4, 8, 4, 3, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 6, 9, 3, 3, 1, 2, -233, -233, -233, -233, 0, 0, 10, 8, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 8, 4, 2, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 4, 4, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    for (int act = 0; act <= 6; act++)
        KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 4, 4, 4, 3, 1, 2, 1, 1, 1, 1, 0, 0, 0, 0, act}));
}

// depth-wise with channel counts that pack (the x86 driver's packed kernel at
// elempack 4/8/16) and one that does not: odd sizes, strides 1-3, dilation,
// even kernels, asymmetric pads, output_pad, SAME cuts
TEST(DeconvolutionDepthWise, depthwise_packed)
{
    reseed(7);
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 7, 5, 16, 16, 16, 3, 1, 2, 1, 0, 1, 1, 1, 0, 0, 0, 1}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 6, 7, 32, 32, 32, 4, 1, 2, 1, 2, 0, 1, 0, 0, 0, 0, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 6, 24, 24, 24, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 4, 5, 12, 12, 12, 2, 1, 3, 0, 0, 0, 0, 1, 1, 0, 0, 3}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 5, 4, 16, 16, 16, 3, 1, 2, -234, -234, -234, -234, 0, 0, 11, 7, 0}));
    KITE_EXPECT_LAYER_OK(run_deconv({"DeconvolutionDepthWise", 9, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 6}));
}

TEST(Deconvolution, rejects_bad_params_and_shapes)
{
    reseed(5);
    std::string why;
    ParamDict pd;
    pd.set(0, 4);
    pd.set(1, 3);
    pd.set(6, 4 * 2 * 9);
    EXPECT_TRUE(run_reference("Deconvolution", pd, {RandomMat(72)}, {RandomMat(5, 5, 3)}, &why).empty()); // 3 != 2 channels
    EXPECT_FALSE(run_reference("Deconvolution", pd, {RandomMat(72)}, {RandomMat(5, 5, 2)}, &why).empty()) << why;
    pd.set(20, 9); // output size without SAME pads
    EXPECT_TRUE(run_reference("Deconvolution", pd, {RandomMat(72)}, {RandomMat(5, 5, 2)}, &why).empty());
    pd.set(4, -233);
    pd.set(20, 50); // larger than the full output
    EXPECT_TRUE(run_reference("Deconvolution", pd, {RandomMat(72)}, {RandomMat(5, 5, 2)}, &why).empty());
    ParamDict bad;
    bad.set(0, 4);
    bad.set(1, 3);
    bad.set(6, 71);
    EXPECT_TRUE(run_reference("Deconvolution", bad, {RandomMat(71)}, {RandomMat(5, 5, 2)}, &why).empty());
}
