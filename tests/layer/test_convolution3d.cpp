// Convolution1D / ConvolutionDepthWise1D / Convolution3D / ConvolutionDepthWise3D
// and the transposed 1-D / 3-D layers against the naive computations.
#include "conv_naive.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

struct NdCase
{
    const char* type;
    bool deconv;
    int nd;                // 1 or 3
    int w, h, d, c;        // input (1-D: w x c)
    int outc, group;
    int k[3], dil, stride[3];
    int pad0[3], pad1[3];  // explicit pads, or pad0[0] = -233/-234 for SAME
    int opad;              // deconv output pad (all axes)
    int outsz[3];          // deconv output size with SAME
    int act;
    float pad_value;
};

static std::string run_nd(const NdCase& t)
{
    ParamDict pd;
    const int kk = t.nd == 1 ? t.k[0] : t.k[0] * t.k[1] * t.k[2];
    const int wsize = t.outc * (t.c / t.group) * kk;
    pd.set(0, t.outc);
    pd.set(1, t.k[0]);
    pd.set(2, t.dil);
    pd.set(3, t.stride[0]);
    pd.set(4, t.pad0[0]);
    pd.set(15, t.pad0[0] < 0 ? t.pad0[0] : t.pad1[0]);
    if (t.nd == 3)
    {
        pd.set(11, t.k[1]);
        pd.set(21, t.k[2]);
        pd.set(13, t.stride[1]);
        pd.set(23, t.stride[2]);
        if (t.pad0[0] >= 0)
        {
            pd.set(14, t.pad0[1]);
            pd.set(16, t.pad1[1]);
            pd.set(24, t.pad0[2]);
            pd.set(17, t.pad1[2]);
        }
    }
    if (t.deconv)
    {
        pd.set(18, t.opad);
        if (t.nd == 1)
            pd.set(20, t.outsz[0]);
        else
        {
            pd.set(25, t.outsz[0]);
            pd.set(26, t.outsz[1]);
            pd.set(27, t.outsz[2]);
        }
    }
    else
        pd.set(18, t.pad_value);
    pd.set(5, 1);
    pd.set(6, wsize);
    if (t.group != 1)
        pd.set(7, t.group);
    pd.set(9, t.act);
    std::vector<float> ap = t.act == 2 ? std::vector<float>{0.1f} : t.act == 3 ? std::vector<float>{-0.5f, 0.5f}
                            : t.act == 6 ? std::vector<float>{0.2f, 0.5f} : std::vector<float>();
    if (!ap.empty())
        pd.set(10, FloatArrayMat(ap));
    std::vector<Mat> weights = {RandomMat(wsize), RandomMat(t.outc)};
    Mat in = t.nd == 1 ? RandomMat(t.w, t.c) : RandomMat(t.w, t.h, t.d, t.c);
    std::vector<Mat> out;
    std::string r = test_layer(t.type, pd, weights, {in}, TestLayerFlags(), &out);
    if (!r.empty())
        return r;
    NaiveConv p;
    p.outc = t.outc;
    p.group = t.group;
    const int naxes = t.nd;
    for (int a = 0; a < naxes; a++)
    {
        p.k[a] = t.k[a];
        p.dil[a] = t.dil;
        p.stride[a] = t.stride[a];
    }
    p.pad_value = t.pad_value;
    p.act = t.act;
    p.act_params = ap;
    Dense x = to_dense(in, true);
    const int insz[3] = {x.w, x.h, x.d};
    for (int a = 0; a < naxes; a++)
    {
        const int ke = t.dil * (t.k[a] - 1) + 1;
        if (t.pad0[0] == -233 || t.pad0[0] == -234)
        {
            int total;
            if (t.deconv)
                total = (insz[a] - 1) * t.stride[a] + ke + t.opad - t.outsz[a];
            else
                total = ((insz[a] + t.stride[a] - 1) / t.stride[a] - 1) * t.stride[a] + ke - insz[a];
            p.pad0[a] = t.pad0[0] == -233 ? total / 2 : total - total / 2;
            p.pad1[a] = total - p.pad0[a];
        }
        else
        {
            p.pad0[a] = t.pad0[a];
            p.pad1[a] = t.pad1[a];
        }
    }
    Dense want;
    if (t.deconv)
    {
        const int opad[3] = {t.opad, t.nd == 3 ? t.opad : 0, t.nd == 3 ? t.opad : 0};
        want = naive_deconv(x, mat_values(weights[0]), mat_values(weights[1]), p, opad);
    }
    else
        want = naive_conv(x, mat_values(weights[0]), mat_values(weights[1]), p);
    return compare_dense(to_dense(out[0], true), want, 1e-4f);
}

TEST(Convolution1D, kernels_strides_pads)
{
    reseed(1);
    for (int s : {1, 2, 3})
        for (int k : {1, 3, 4})
            for (int dil : {1, 2})
                KITE_EXPECT_LAYER_OK(run_nd({"Convolution1D", false, 1, 13, 1, 1, 3, 4, 1, {k, 1, 1}, dil, {s, 1, 1}, {1, 0, 0}, {2, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    for (int pad : {-233, -234})
        KITE_EXPECT_LAYER_OK(run_nd({"Convolution1D", false, 1, 12, 1, 1, 3, 4, 1, {4, 1, 1}, 1, {2, 1, 1}, {pad, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"Convolution1D", false, 1, 9, 1, 1, 2, 3, 1, {3, 1, 1}, 1, {1, 1, 1}, {1, 0, 0}, {1, 0, 0}, 0, {0, 0, 0}, 0, 0.5f}));
    for (int act = 0; act <= 6; act++)
        KITE_EXPECT_LAYER_OK(run_nd({"Convolution1D", false, 1, 9, 1, 1, 3, 4, 1, {3, 1, 1}, 1, {1, 1, 1}, {1, 0, 0}, {1, 0, 0}, 0, {0, 0, 0}, act, 0.f}));
}

TEST(ConvolutionDepthWise1D, groups)
{
    reseed(2);
    KITE_EXPECT_LAYER_OK(run_nd({"ConvolutionDepthWise1D", false, 1, 13, 1, 1, 4, 4, 4, {3, 1, 1}, 1, {1, 1, 1}, {1, 0, 0}, {1, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"ConvolutionDepthWise1D", false, 1, 13, 1, 1, 6, 3, 3, {3, 1, 1}, 1, {2, 1, 1}, {1, 0, 0}, {1, 0, 0}, 0, {0, 0, 0}, 1, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"ConvolutionDepthWise1D", false, 1, 13, 1, 1, 4, 8, 2, {5, 1, 1}, 1, {2, 1, 1}, {-233, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
}

TEST(Deconvolution1D, strides_pads_output)
{
    reseed(3);
    for (int s : {1, 2, 3})
        for (int k : {2, 3})
            KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution1D", true, 1, 7, 1, 1, 3, 4, 1, {k, 1, 1}, 1, {s, 1, 1}, {1, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution1D", true, 1, 7, 1, 1, 2, 3, 1, {4, 1, 1}, 1, {2, 1, 1}, {1, 0, 0}, {1, 0, 0}, 1, {0, 0, 0}, 0, 0.f}));
    for (int pad : {-233, -234})
        KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution1D", true, 1, 7, 1, 1, 3, 2, 1, {3, 1, 1}, 1, {2, 1, 1}, {pad, 0, 0}, {0, 0, 0}, 0, {14, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"DeconvolutionDepthWise1D", true, 1, 7, 1, 1, 4, 8, 2, {3, 1, 1}, 1, {2, 1, 1}, {1, 0, 0}, {1, 0, 0}, 0, {0, 0, 0}, 1, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"DeconvolutionDepthWise1D", true, 1, 7, 1, 1, 4, 4, 4, {3, 1, 1}, 2, {2, 1, 1}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
}

TEST(Convolution3D, kernels_strides_pads)
{
    reseed(4);
    KITE_EXPECT_LAYER_OK(run_nd({"Convolution3D", false, 3, 6, 5, 4, 2, 3, 1, {3, 3, 3}, 1, {1, 1, 1}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"Convolution3D", false, 3, 7, 6, 5, 2, 3, 1, {3, 2, 1}, 1, {2, 1, 2}, {1, 0, 1}, {2, 1, 0}, 0, {0, 0, 0}, 0, 0.25f}));
    KITE_EXPECT_LAYER_OK(run_nd({"Convolution3D", false, 3, 7, 7, 6, 2, 2, 1, {3, 3, 3}, 2, {1, 1, 1}, {2, 2, 2}, {2, 2, 2}, 0, {0, 0, 0}, 0, 0.f}));
    for (int pad : {-233, -234})
        KITE_EXPECT_LAYER_OK(run_nd({"Convolution3D", false, 3, 7, 6, 5, 2, 3, 1, {2, 2, 2}, 1, {2, 2, 2}, {pad, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    for (int act = 0; act <= 6; act++)
        KITE_EXPECT_LAYER_OK(run_nd({"Convolution3D", false, 3, 5, 4, 4, 2, 3, 1, {3, 3, 3}, 1, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, {0, 0, 0}, act, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"ConvolutionDepthWise3D", false, 3, 6, 5, 5, 4, 4, 4, {3, 3, 3}, 1, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"ConvolutionDepthWise3D", false, 3, 6, 5, 5, 4, 6, 2, {3, 3, 3}, 1, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 0, {0, 0, 0}, 1, 0.f}));
}

TEST(Deconvolution3D, strides_pads_output)
{
    reseed(5);
    KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution3D", true, 3, 4, 3, 3, 2, 3, 1, {3, 3, 3}, 1, {2, 2, 2}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution3D", true, 3, 4, 4, 3, 2, 2, 1, {3, 3, 3}, 1, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution3D", true, 3, 4, 3, 3, 2, 3, 1, {3, 2, 1}, 1, {1, 2, 1}, {1, 0, 0}, {0, 1, 0}, 0, {0, 0, 0}, 0, 0.f}));
    for (int pad : {-233, -234})
        KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution3D", true, 3, 4, 4, 3, 2, 2, 1, {3, 3, 3}, 1, {2, 2, 2}, {pad, 0, 0}, {0, 0, 0}, 0, {8, 7, 6}, 0, 0.f}));
    for (int act = 0; act <= 6; act++)
        KITE_EXPECT_LAYER_OK(run_nd({"Deconvolution3D", true, 3, 3, 3, 3, 2, 3, 1, {3, 3, 3}, 1, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 0, {0, 0, 0}, act, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"DeconvolutionDepthWise3D", true, 3, 4, 4, 3, 4, 4, 4, {3, 3, 3}, 1, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 0, {0, 0, 0}, 0, 0.f}));
    KITE_EXPECT_LAYER_OK(run_nd({"DeconvolutionDepthWise3D", true, 3, 4, 4, 3, 4, 6, 2, {3, 3, 3}, 1, {2, 2, 2}, {0, 0, 0}, {0, 0, 0}, 0, {0, 0, 0}, 0, 0.f}));
}

TEST(Convolution3D, rejects_bad_shapes)
{
    reseed(6);
    std::string why;
    ParamDict pd;
    pd.set(0, 2);
    pd.set(1, 3);
    pd.set(6, 2 * 2 * 27);
    EXPECT_TRUE(run_reference("Convolution3D", pd, {RandomMat(108)}, {RandomMat(5, 5, 2)}, &why).empty()); // dims 3
    EXPECT_TRUE(run_reference("Convolution3D", pd, {RandomMat(108)}, {RandomMat(5, 5, 5, 3)}, &why).empty()); // channels
    EXPECT_FALSE(run_reference("Convolution3D", pd, {RandomMat(108)}, {RandomMat(5, 5, 5, 2)}, &why).empty()) << why;
    ParamDict p1;
    p1.set(0, 2);
    p1.set(1, 3);
    p1.set(6, 2 * 2 * 3);
    EXPECT_TRUE(run_reference("Convolution1D", p1, {RandomMat(12)}, {RandomMat(5, 3)}, &why).empty());
    EXPECT_FALSE(run_reference("Convolution1D", p1, {RandomMat(12)}, {RandomMat(5, 2)}, &why).empty()) << why;
}
