#include "math_test_helpers.h"

#include <cfloat>

using namespace kite;
using namespace kite::test;

// naive pooling with explicit pads (valid mode): independent of the layer
static float naive_pool(const Mat& in, int q, int oy, int ox, int type, int kw, int kh, int sw, int sh, int pl, int pt,
                        bool include_pad)
{
    float mx = -FLT_MAX, sum = 0.f;
    int count = 0;
    for (int i = 0; i < kh; i++)
        for (int j = 0; j < kw; j++)
        {
            int y = oy * sh + i - pt, x = ox * sw + j - pl;
            bool inside = y >= 0 && y < in.h && x >= 0 && x < in.w;
            float v = inside ? at(in, x, y, 0, q) : 0.f;
            if (inside)
                mx = std::max(mx, v), count++;
            sum += v;
        }
    if (type == 0)
        return mx;
    return include_pad ? sum / (kw * kh) : sum / count;
}

TEST(Pooling, valid_mode_against_naive)
{
    reseed(1);
    for (int type : {0, 1})
        for (int incl : {0, 1})
            for (int k : {2, 3})
                for (int s : {1, 2})
                    for (int pad : {0, 1})
                    {
                        Mat in = RandomMat(11, 9, 3);
                        ParamDict pd;
                        pd.set(0, type);
                        pd.set(1, k);
                        pd.set(2, s);
                        pd.set(3, pad);
                        pd.set(5, 1);
                        pd.set(6, incl);
                        std::vector<Mat> out = run_all("Pooling", pd, {}, {in});
                        ASSERT_EQ(out.size(), 1u);
                        const Mat& o = out[0];
                        const int ow = (11 + 2 * pad - k) / s + 1, oh = (9 + 2 * pad - k) / s + 1;
                        ASSERT_TRUE(same_shape(o, 3, ow, oh, 1, 3));
                        for (int q = 0; q < 3; q++)
                            for (int y = 0; y < oh; y++)
                                for (int x = 0; x < ow; x++)
                                    ASSERT_TRUE(near(at(o, x, y, 0, q), naive_pool(in, q, y, x, type, k, k, s, s, pad, pad, incl)))
                                        << "type " << type << " k " << k << " s " << s << " pad " << pad;
                    }
}

TEST(Pooling, full_mode_ceil_and_tail_excluded)
{
    reseed(2);
    // w = 8, k = 3, s = 2: floor gives 3 columns, full (ceil) mode gives 4
    Mat in = RandomMat(8, 6, 2);
    ParamDict pd;
    pd.set(0, 1);
    pd.set(1, 3);
    pd.set(2, 2);
    std::vector<Mat> out = run_all("Pooling", pd, {}, {in});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 3, 4, 3, 1, 2));
    // last column covers input columns 6, 7 only and averages over them
    for (int q = 0; q < 2; q++)
        EXPECT_TRUE(near(at(out[0], 3, 0, 0, q), naive_pool(in, q, 0, 3, 1, 3, 3, 2, 2, 0, 0, false)));
}

TEST(Pooling, same_modes_output_size)
{
    reseed(3);
    for (int mode : {2, 3})
        for (int w : {7, 8, 9})
        {
            Mat in = RandomMat(w, 5, 2);
            ParamDict pd;
            pd.set(0, 0);
            pd.set(1, 3);
            pd.set(2, 2);
            pd.set(5, mode);
            std::vector<Mat> out = run_all("Pooling", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            EXPECT_EQ(out[0].w, (w + 1) / 2);
            EXPECT_EQ(out[0].h, 3);
        }
}

TEST(Pooling, global_and_adaptive)
{
    reseed(4);
    Mat in = RandomMat(7, 5, 4);
    for (int type : {0, 1})
    {
        ParamDict pd;
        pd.set(0, type);
        pd.set(4, 1);
        std::vector<Mat> g = run_all("Pooling", pd, {}, {in});
        ASSERT_EQ(g.size(), 1u);
        ASSERT_TRUE(same_shape(g[0], 1, 4));
        ParamDict pa;
        pa.set(0, type);
        pa.set(7, 1);
        pa.set(8, 1);
        std::vector<Mat> a = run_all("Pooling", pa, {}, {in});
        ASSERT_EQ(a.size(), 1u);
        for (int q = 0; q < 4; q++)
        {
            float mx = -FLT_MAX, sum = 0.f;
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 7; x++)
                    mx = std::max(mx, at(in, x, y, 0, q)), sum += at(in, x, y, 0, q);
            float want = type == 0 ? mx : sum / 35;
            EXPECT_TRUE(near(at(g[0], q), want));
            EXPECT_TRUE(near(at(a[0], 0, 0, 0, q), want));
        }
        // adaptive 3x2 from 7x5: bins [0,3) [2,5) [4,7) x [0,3) [2,5)
        pa.set(8, 3);
        pa.set(18, 2);
        a = run_all("Pooling", pa, {}, {in});
        ASSERT_EQ(a.size(), 1u);
        ASSERT_TRUE(same_shape(a[0], 3, 3, 2, 1, 4));
        float mx = -FLT_MAX, sum = 0.f;
        for (int y = 2; y < 5; y++)
            for (int x = 4; x < 7; x++)
                mx = std::max(mx, at(in, x, y, 0, 1)), sum += at(in, x, y, 0, 1);
        EXPECT_TRUE(near(at(a[0], 2, 1, 0, 1), type == 0 ? mx : sum / 9));
    }
}

TEST(Pooling, rectangular_and_odd)
{
    reseed(5);
    ParamDict pd;
    pd.set(0, 1);
    pd.set(1, 3);
    pd.set(11, 2);
    pd.set(2, 2);
    pd.set(12, 1);
    pd.set(3, 1);
    pd.set(14, 0);
    pd.set(13, 1);
    pd.set(15, 0);
    std::vector<Mat> out = run_all("Pooling", pd, {}, {RandomMat(13, 7, 5)});
    EXPECT_EQ(out.size(), 1u);
}

TEST(Pooling, bad_params_and_inputs)
{
    ParamDict pd;
    pd.set(1, 0); // no kernel
    EXPECT_TRUE(reference_fails("Pooling", pd, {}, {RandomMat(5, 5, 1)}));
    ParamDict pt;
    pt.set(0, 7);
    pt.set(1, 2);
    EXPECT_TRUE(reference_fails("Pooling", pt, {}, {RandomMat(5, 5, 1)}));
    ParamDict big;
    big.set(1, 9);
    big.set(5, 1);
    EXPECT_TRUE(reference_fails("Pooling", big, {}, {RandomMat(5, 5, 1)}));
    ParamDict ok;
    ok.set(1, 2);
    EXPECT_TRUE(reference_fails("Pooling", ok, {}, {RandomMat(5)}));
}

// channel counts that pack by 4, 8 and 16 (and one that does not), every
// pooling type, pad mode and pad counting, so each x86 row runs its packed
// kernels against the reference
TEST(Pooling, packed_channels_every_mode)
{
    reseed(160);
    for (int c : {16, 24, 12, 5})
    {
        Mat in = RandomMat(9, 7, c);
        for (int type = 0; type < 2; type++)
        {
            for (int mode = 0; mode < 4; mode++)
            {
                for (int ks : {2 * 10 + 2, 3 * 10 + 1, 3 * 10 + 2})
                {
                    ParamDict pd;
                    pd.set(0, type);
                    pd.set(1, ks / 10);
                    pd.set(2, ks % 10);
                    pd.set(3, type == 0 && mode == 0 ? 0 : 1); // no all-pad max window (-FLT_MAX is -inf in fp16)
                    pd.set(5, mode);
                    pd.set(6, (ks + mode) % 2);
                    SCOPED_TRACE("c=" + std::to_string(c) + " type=" + std::to_string(type) + " mode=" + std::to_string(mode) + " k/s=" + std::to_string(ks));
                    KITE_EXPECT_LAYER_OK(test_layer("Pooling", pd, {}, {in}));
                }
            }
            ParamDict g;
            g.set(0, type);
            g.set(4, 1);
            SCOPED_TRACE("global c=" + std::to_string(c) + " type=" + std::to_string(type));
            KITE_EXPECT_LAYER_OK(test_layer("Pooling", g, {}, {in}));
            // planes larger than the GPU's 64-invocation reduction, and a single position
            KITE_EXPECT_LAYER_OK(test_layer("Pooling", g, {}, {RandomMat(23, 17, c)}));
            KITE_EXPECT_LAYER_OK(test_layer("Pooling", g, {}, {RandomMat(1, 1, c)}));
        }
    }
}
