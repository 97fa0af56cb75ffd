#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

using namespace kite;
using namespace kite::test;

static float sig(float x)
{
    return 1.f / (1.f + std::exp(-x));
}

static ParamDict params(int num_class, int num_box, float conf, float nms, const std::vector<float>& biases,
                        const std::vector<float>& mask, const std::vector<float>& scale)
{
    ParamDict pd;
    pd.set(0, num_class);
    pd.set(1, num_box);
    pd.set(2, conf);
    pd.set(3, nms);
    pd.set(4, FloatArrayMat(biases));
    pd.set(5, FloatArrayMat(mask));
    pd.set(6, FloatArrayMat(scale));
    return pd;
}

TEST(Yolov3DetectionOutput, hand_computed_cell)
{
    // 2 x 2 grid, 1 box, 2 classes; only cell (row 1, col 0) is confident
    Mat in(2, 2, 7);
    in.fill(-10.f);
    auto at = [&](int c, int y, int x) -> float& { return ((float*)in.channel(c).data)[y * 2 + x]; };
    at(0, 1, 0) = 0.4f;  // x
    at(1, 1, 0) = -0.3f; // y
    at(2, 1, 0) = 0.2f;  // w
    at(3, 1, 0) = -0.1f; // h
    at(4, 1, 0) = 2.f;   // objectness
    at(5, 1, 0) = 0.5f;  // class 0
    at(6, 1, 0) = 1.5f;  // class 1 (the max)
    ParamDict pd = params(2, 1, 0.3f, 0.45f, {10.f, 20.f, 30.f, 40.f}, {1.f}, {16.f});
    std::string why;
    std::vector<Mat> out = run_reference("Yolov3DetectionOutput", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].h, 1);
    const float* r = out[0].row(0);
    EXPECT_FLOAT_EQ(r[0], 2.f); // class 1 + 1
    // ncnn's confidence expression 1 / (1 + e^-obj * (1 + e^-cls))
    EXPECT_NEAR(r[1], 1.f / (1.f + std::exp(-2.f) * (1.f + std::exp(-1.5f))), 1e-6);
    const float cx = (0 + sig(0.4f)) / 2, cy = (1 + sig(-0.3f)) / 2;
    const float bw = std::exp(0.2f) * 30.f / 32, bh = std::exp(-0.1f) * 40.f / 32; // net = 16 * 2
    EXPECT_NEAR(r[2], cx - bw / 2, 1e-6);
    EXPECT_NEAR(r[3], cy - bh / 2, 1e-6);
    EXPECT_NEAR(r[4], cx + bw / 2, 1e-6);
    EXPECT_NEAR(r[5], cy + bh / 2, 1e-6);
}

TEST(Yolov3DetectionOutput, nms_across_inputs_and_empty)
{
    // two 1x1 inputs predicting the same box; the weaker one is suppressed
    Mat a(1, 1, 6), b(1, 1, 6);
    const float va[6] = {0.f, 0.f, 0.f, 0.f, 3.f, 2.f};
    const float vb[6] = {0.f, 0.f, 0.f, 0.f, 1.f, 2.f};
    for (int c = 0; c < 6; c++)
    {
        ((float*)a.channel(c).data)[0] = va[c];
        ((float*)b.channel(c).data)[0] = vb[c];
    }
    ParamDict pd = params(1, 1, 0.1f, 0.45f, {8.f, 8.f}, {0.f, 0.f}, {16.f, 16.f});
    std::string why;
    std::vector<Mat> out = run_reference("Yolov3DetectionOutput", pd, {}, {a, b}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].h, 1);
    EXPECT_NEAR(out[0].row(0)[1], 1.f / (1.f + std::exp(-3.f) * (1.f + std::exp(-2.f))), 1e-6);

    ParamDict strict = params(1, 1, 0.999f, 0.45f, {8.f, 8.f}, {0.f, 0.f}, {16.f, 16.f});
    out = run_reference("Yolov3DetectionOutput", strict, {}, {a, b}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    EXPECT_TRUE(out[0].empty());
}

TEST(Yolov3DetectionOutput, random_properties)
{
    reseed(5);
    for (int iter = 0; iter < 10; iter++)
    {
        const int nc = rand_int(1, 4), nb = rand_int(1, 3);
        std::vector<Mat> ins;
        std::vector<float> mask, scale;
        for (int b = 0; b < 2; b++)
        {
            ins.push_back(RandomMat(rand_int(1, 7), rand_int(1, 7), nb * (5 + nc), -3.f, 3.f));
            for (int k = 0; k < nb; k++)
                mask.push_back((float)rand_int(0, 2));
            scale.push_back(16.f);
        }
        ParamDict pd = params(nc, nb, 0.2f, 0.45f, {10, 13, 16, 30, 33, 23}, mask, scale);
        std::string why;
        std::vector<Mat> out = run_reference("Yolov3DetectionOutput", pd, {}, ins, &why);
        ASSERT_EQ(out.size(), 1u) << why;
        if (out[0].empty())
            continue;
        for (int r = 0; r < out[0].h; r++)
        {
            const float* a = out[0].row(r);
            EXPECT_GE(a[0], 1.f);
            EXPECT_LE(a[0], (float)nc);
            EXPECT_GE(a[1], 0.2f);
            if (r > 0)
                EXPECT_LE(a[1], out[0].row(r - 1)[1]);
        }
        KITE_EXPECT_LAYER_OK(test_layer("Yolov3DetectionOutput", pd, {}, ins));
    }
}

TEST(Yolov3DetectionOutput, bad_params_and_shapes)
{
    std::string why;
    // channel count does not match num_box * (5 + num_class)
    ParamDict pd = params(2, 1, 0.1f, 0.45f, {8.f, 8.f}, {0.f}, {16.f});
    EXPECT_TRUE(run_reference("Yolov3DetectionOutput", pd, {}, {RandomMat(2, 2, 8)}, &why).empty());
    // mask index past the biases
    ParamDict bad = params(2, 1, 0.1f, 0.45f, {8.f, 8.f}, {3.f}, {16.f});
    EXPECT_TRUE(run_reference("Yolov3DetectionOutput", bad, {}, {RandomMat(2, 2, 7)}, &why).empty());
    // two inputs but mask / anchors_scale only for one
    EXPECT_TRUE(run_reference("Yolov3DetectionOutput", pd, {}, {RandomMat(2, 2, 7), RandomMat(2, 2, 7)}, &why).empty());
}

// The box corners are rounded as ncnn's x86 build computes them (reciprocal
// multiplications, the centre fused into each corner: one rounding per
// corner). Reference values below were produced by ncnn itself (pip ncnn
// 1.0.20261020, x86-64, glibc), not by kite.
TEST(Yolov3DetectionOutput, corners_round_as_ncnn_x86)
{
    // one saturated cell of a 20 x 20 grid with a zero-size box: every corner
    // is 9 / 20, which ncnn returns as 0.45000002f (9 * (1 / 20.f) rounded
    // once), not the correctly rounded quotient 0.45f
    Mat in(20, 20, 6);
    in.fill(-30.f);
    const float cell[6] = {50.f, 50.f, -200.f, -200.f, 10.f, 10.f};
    for (int c = 0; c < 6; c++)
        ((float*)in.channel(c).data)[8 * 20 + 8] = cell[c];
    ParamDict pd = params(1, 1, 0.01f, 0.45f, {12.f, 18.f}, {0.f}, {32.f});
    std::string why;
    std::vector<Mat> out = run_reference("Yolov3DetectionOutput", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].h, 1);
    for (int k = 2; k < 6; k++)
        EXPECT_EQ(out[0].row(0)[k], 0x1.cccccep-2f) << "corner " << k;
}

TEST(Yolov3DetectionOutput, matches_ncnn_rows)
{
    // two scales, two boxes each, one class; inputs from an exact formula
    auto make = [](int w, int h, int k) {
        Mat m(w, h, 12);
        for (int c = 0; c < 12; c++)
            for (int i = 0; i < w * h; i++)
            {
                k++;
                float v = (float)((k * 37) % 97 - 48) / 8.f;
                if (c % 6 == 2 || c % 6 == 3)
                    v *= 0.5f;
                if (c % 6 == 4)
                    v = (k % 3) ? 4.f : -4.f;
                if (c % 6 == 5)
                    v = 3.f;
                ((float*)m.channel(c).data)[i] = v;
            }
        return m;
    };
    ParamDict pd = params(1, 2, 0.3f, 0.45f, {10.f, 14.f, 23.f, 27.f}, {0.f, 1.f, 1.f, 0.f}, {32.f, 16.f});
    std::string why;
    std::vector<Mat> out = run_reference("Yolov3DetectionOutput", pd, {}, {make(5, 4, 0), make(10, 8, 1000)}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].w, 6);
    ASSERT_EQ(out[0].h, 93); // ncnn keeps 93 boxes
    // rows where the plain (correctly rounded) arithmetic gives other last bits
    const struct
    {
        int row;
        float v[6];
    } expect[] = {
        {5, {0x1.0000000000000p+0f, 0x1.f6575a0000000p-1f, 0x1.3158d60000000p-1f, -0x1.25b4500000000p-3f, 0x1.380df80000000p-1f, 0x1.8378500000000p-2f}},
        {9, {0x1.0000000000000p+0f, 0x1.f6575a0000000p-1f, 0x1.973a940000000p-2f, 0x1.d4277c0000000p-3f, 0x1.9d2e860000000p-2f, 0x1.d72e5e0000000p-2f}},
        {11, {0x1.0000000000000p+0f, 0x1.f6575a0000000p-1f, 0x1.6486200000000p-1f, 0x1.7317700000000p-4f, 0x1.6baa020000000p-1f, 0x1.4ac7260000000p-1f}},
        {12, {0x1.0000000000000p+0f, 0x1.f6575a0000000p-1f, 0x1.cb1be60000000p-1f, 0x1.1dd7100000000p-5f, 0x1.d055340000000p-1f, 0x1.c3dc4a0000000p-2f}},
        {13, {0x1.0000000000000p+0f, 0x1.f6575a0000000p-1f, 0x1.5c3cba0000000p-1f, 0x1.d92a6e0000000p-4f, 0x1.1d2e3e0000000p+0f, 0x1.3efce40000000p-3f}},
        {14, {0x1.0000000000000p+0f, 0x1.f6575a0000000p-1f, 0x1.94109a0000000p-3f, -0x1.d5b3000000000p-4f, 0x1.c630bc0000000p-3f, 0x1.b869000000000p-1f}},
    };
    for (const auto& e : expect)
        for (int k = 0; k < 6; k++)
        {
#if defined(__x86_64__) && defined(__GLIBC__)
            // same libm exp as the reference run: bit-exact
            EXPECT_EQ(out[0].row(e.row)[k], e.v[k]) << "row " << e.row << " col " << k;
#else
            EXPECT_NEAR(out[0].row(e.row)[k], e.v[k], 1e-6f) << "row " << e.row << " col " << k;
#endif
        }
}

// Cells whose objectness alone puts them under the threshold are skipped before
// their class scores are read; that bound must never drop a box the full
// expression keeps. Without suppression (nms 1: no IoU exceeds it) every kept
// cell is one output row, so the row count must equal a brute-force count of the
// cells at or above the threshold, with objectness logits clustered around the
// threshold's logit (where the bound and the confidence are closest).
TEST(Yolov3DetectionOutput, objectness_bound_keeps_every_box)
{
    const unsigned seed = 17;
    reseed(seed);
    for (int iter = 0; iter < 20; iter++)
    {
        const int nc = rand_int(1, 5), nb = rand_int(1, 3);
        const float thr = 0.05f + 0.9f * (float)rand_int(0, 100) / 100.f;
        const float thr_logit = std::log(thr / (1.f - thr));
        Mat in = RandomMat(rand_int(1, 9), rand_int(1, 9), nb * (5 + nc), -3.f, 3.f);
        int expected = 0;
        for (int k = 0; k < nb; k++)
        {
            float* obj = in.channel(k * (5 + nc) + 4);
            for (int i = 0; i < in.w * in.h; i++)
                obj[i] = thr_logit + (obj[i] - 0.f) * (iter % 2 ? 0.001f : 0.5f);
            for (int i = 0; i < in.w * in.h; i++)
            {
                float best = -FLT_MAX;
                for (int q = 0; q < nc; q++)
                    best = std::max(best, ((const float*)in.channel(k * (5 + nc) + 5 + q).data)[i]);
                const float conf = 1.f / std::fma(std::exp(-obj[i]), 1.f + std::exp(-best), 1.f);
                if (conf >= thr)
                    expected++;
            }
        }
        std::vector<float> mask;
        for (int k = 0; k < nb; k++)
            mask.push_back((float)rand_int(0, 2));
        ParamDict pd = params(nc, nb, thr, 1.f, {10, 13, 16, 30, 33, 23}, mask, {16.f});
        std::string why;
        std::vector<Mat> out = run_reference("Yolov3DetectionOutput", pd, {}, {in}, &why);
        ASSERT_EQ(out.size(), 1u) << why << " (seed " << seed << ", iteration " << iter << ")";
        EXPECT_EQ(out[0].empty() ? 0 : out[0].h, expected) << "seed " << seed << ", iteration " << iter << ", threshold " << thr;
    }
}
