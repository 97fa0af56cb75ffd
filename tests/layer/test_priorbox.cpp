#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

static std::vector<Mat> run(const ParamDict& pd, const std::vector<Mat>& in, std::string* why)
{
    return run_reference("PriorBox", pd, {}, in, why);
}

TEST(PriorBox, caffe_hand_computed)
{
    // feature 2 x 1, image 10 x 10 (from the second input): step 5 x 10
    ParamDict pd;
    pd.set(0, FloatArrayMat({4.f}));
    pd.set(1, FloatArrayMat({9.f}));
    pd.set(2, FloatArrayMat({4.f}));
    pd.set(9, -233);
    pd.set(10, -233);
    pd.set(13, 0.5f);
    std::string why;
    std::vector<Mat> out = run(pd, {Mat(2, 1, 3), Mat(10, 10, 3)}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const Mat& m = out[0];
    // num_prior = 1 * 1 * 2 + 1 + 1 = 4 per cell, 2 cells
    ASSERT_EQ(m.dims, 2);
    ASSERT_EQ(m.w, 4 * 2 * 4);
    ASSERT_EQ(m.h, 2);
    const float* b = m.row(0);
    // cell 0 centre (2.5, 5); min box 4x4
    const float want[4][4] = {
        {0.5f / 10, 3.f / 10, 4.5f / 10, 7.f / 10},    // min 4 x 4
        {-0.5f / 10, 2.f / 10, 5.5f / 10, 8.f / 10},   // sqrt(4*9) = 6
        {-1.5f / 10, 4.f / 10, 6.5f / 10, 6.f / 10},   // ar 4: 8 x 2
        {1.5f / 10, 1.f / 10, 3.5f / 10, 9.f / 10},    // flipped: 2 x 8
    };
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4; i++)
            EXPECT_NEAR(b[k * 4 + i], want[k][i], 1e-6) << "prior " << k << " coord " << i;
    // cell 1 is cell 0 shifted by step 5 in x
    for (int k = 0; k < 4; k++)
    {
        EXPECT_NEAR(b[16 + k * 4 + 0], want[k][0] + 0.5f, 1e-6);
        EXPECT_NEAR(b[16 + k * 4 + 1], want[k][1], 1e-6);
    }
    const float* v = m.row(1);
    for (int i = 0; i < m.w; i += 4)
    {
        EXPECT_FLOAT_EQ(v[i], 0.1f);
        EXPECT_FLOAT_EQ(v[i + 1], 0.1f);
        EXPECT_FLOAT_EQ(v[i + 2], 0.2f);
        EXPECT_FLOAT_EQ(v[i + 3], 0.2f);
    }
}

TEST(PriorBox, clip_fixed_image_and_step)
{
    ParamDict pd;
    pd.set(0, FloatArrayMat({30.f, 60.f}));
    pd.set(2, FloatArrayMat({2.f, 3.f}));
    pd.set(7, 0); // no flip
    pd.set(8, 1); // clip
    pd.set(9, 100);
    pd.set(10, 80);
    pd.set(11, 16.f);
    pd.set(12, 20.f);
    pd.set(3, 0.3f);
    std::string why;
    std::vector<Mat> out = run(pd, {Mat(3, 4, 2)}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const int num_prior = 2 * 2 + 2;
    ASSERT_EQ(out[0].w, 4 * 3 * 4 * num_prior);
    const float* b = out[0].row(0);
    for (int i = 0; i < out[0].w; i++)
    {
        EXPECT_GE(b[i], 0.f);
        EXPECT_LE(b[i], 1.f);
    }
    // first prior of cell (row 1, col 2): centre (32, 20), size 30, clipped
    const float* p = b + (1 * 3 + 2) * num_prior * 4;
    EXPECT_NEAR(p[0], 17.f / 100, 1e-6);
    EXPECT_NEAR(p[1], 5.f / 80, 1e-6);
    EXPECT_NEAR(p[2], 47.f / 100, 1e-6);
    EXPECT_NEAR(p[3], 35.f / 80, 1e-6);
    EXPECT_FLOAT_EQ(out[0].row(1)[0], 0.3f);
    KITE_EXPECT_LAYER_OK(test_layer("PriorBox", pd, {}, {RandomMat(3, 4, 2)}));
}

TEST(PriorBox, mmdetection_step_and_centre)
{
    ParamDict pd;
    pd.set(0, FloatArrayMat({8.f}));
    pd.set(9, -233);
    pd.set(10, -233);
    pd.set(13, 0.5f);
    pd.set(14, 1);
    pd.set(15, 1);
    std::string why;
    // image 30 x 20, feature 4 x 3: step ceil(7.5) = 8, ceil(6.67) = 7
    std::vector<Mat> out = run(pd, {Mat(4, 3, 1), Mat(30, 20, 1)}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const float* b = out[0].row(0);
    // cell (row 2, col 3): centre x = 0.5 * 7 + 3 * 8 = 27.5, y = 0.5 * 6 + 2 * 7 = 17
    const float* p = b + (2 * 4 + 3) * 4;
    EXPECT_NEAR(p[0], (27.5f - 4) / 30, 1e-6);
    EXPECT_NEAR(p[1], (17.f - 4) / 20, 1e-6);
    EXPECT_NEAR(p[2], (27.5f + 4) / 30, 1e-6);
    EXPECT_NEAR(p[3], (17.f + 4) / 20, 1e-6);
}

TEST(PriorBox, mxnet_style)
{
    ParamDict pd;
    pd.set(0, FloatArrayMat({0.2f, 0.4f}));
    pd.set(2, FloatArrayMat({1.f, 4.f}));
    pd.set(9, -233);
    pd.set(10, -233);
    pd.set(13, 0.5f);
    std::string why;
    std::vector<Mat> out = run(pd, {Mat(4, 2, 1)}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const Mat& m = out[0];
    ASSERT_EQ(m.dims, 1);
    ASSERT_EQ(m.w, 4 * 4 * 2 * 3);
    // cell (0, 0): centre (0.125, 0.25); size 0.2: half w = 0.2 * 2 / 4 / 2 = 0.05, half h = 0.1
    EXPECT_NEAR(m[0], 0.075f, 1e-6);
    EXPECT_NEAR(m[1], 0.15f, 1e-6);
    EXPECT_NEAR(m[2], 0.175f, 1e-6);
    EXPECT_NEAR(m[3], 0.35f, 1e-6);
    // third prior: ratio 4 (sqrt 2) with size 0.2: half w = 0.2 * 0.5 * 2 / 2 = 0.1, half h = 0.05
    EXPECT_NEAR(m[8], 0.025f, 1e-6);
    EXPECT_NEAR(m[9], 0.2f, 1e-6);
    EXPECT_NEAR(m[10], 0.225f, 1e-6);
    EXPECT_NEAR(m[11], 0.3f, 1e-6);
}

TEST(PriorBox, bad_params_and_inputs)
{
    std::string why;
    ParamDict none;
    EXPECT_TRUE(run(none, {Mat(2, 2, 1), Mat(8, 8, 1)}, &why).empty());

    ParamDict mismatch;
    mismatch.set(0, FloatArrayMat({4.f, 8.f}));
    mismatch.set(1, FloatArrayMat({9.f}));
    EXPECT_TRUE(run(mismatch, {Mat(2, 2, 1), Mat(8, 8, 1)}, &why).empty());

    // image size from the second input, but it is missing (max_sizes set, so not MXNet style)
    ParamDict noimg;
    noimg.set(0, FloatArrayMat({4.f}));
    noimg.set(1, FloatArrayMat({9.f}));
    noimg.set(9, -233);
    noimg.set(10, -233);
    EXPECT_TRUE(run(noimg, {Mat(2, 2, 1)}, &why).empty());

    // default image size 0 is rejected instead of dividing by zero
    ParamDict zero;
    zero.set(0, FloatArrayMat({4.f}));
    EXPECT_TRUE(run(zero, {Mat(2, 2, 1), Mat(8, 8, 1)}, &why).empty());
}
