#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

static float sig(float x)
{
    return 1.f / (1.f + std::exp(-x));
}

static ParamDict params(int num_class, int num_box, float conf, const std::vector<float>& biases)
{
    ParamDict pd;
    pd.set(0, num_class);
    pd.set(1, num_box);
    pd.set(2, conf);
    pd.set(3, 0.45f);
    pd.set(4, FloatArrayMat(biases));
    return pd;
}

TEST(YoloDetectionOutput, hand_computed_cell)
{
    // 3 x 2 grid (w 3, h 2), 1 box, 3 classes; only cell (row 0, col 2) is confident
    Mat in(3, 2, 8);
    in.fill(-8.f);
    auto at = [&](int c, int y, int x) -> float& { return ((float*)in.channel(c).data)[y * 3 + x]; };
    at(0, 0, 2) = 0.5f;
    at(1, 0, 2) = 0.1f;
    at(2, 0, 2) = -0.2f;
    at(3, 0, 2) = 0.3f;
    at(4, 0, 2) = 3.f;
    at(5, 0, 2) = 0.f;
    at(6, 0, 2) = 2.f;
    at(7, 0, 2) = 1.f;
    ParamDict pd = params(3, 1, 0.3f, {1.5f, 2.5f});
    std::string why;
    std::vector<Mat> out = run_reference("YoloDetectionOutput", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].dims, 2);
    ASSERT_EQ(out[0].h, 1);
    const float* r = out[0].row(0);
    const float p1 = std::exp(2.f) / (std::exp(0.f) + std::exp(2.f) + std::exp(1.f));
    EXPECT_FLOAT_EQ(r[0], 2.f);
    EXPECT_NEAR(r[1], sig(3.f) * p1, 1e-6);
    const float cx = (2 + sig(0.5f)) / 3, cy = (0 + sig(0.1f)) / 2;
    const float bw = std::exp(-0.2f) * 1.5f / 3, bh = std::exp(0.3f) * 2.5f / 2;
    EXPECT_NEAR(r[2], cx - bw / 2, 1e-6);
    EXPECT_NEAR(r[3], cy - bh / 2, 1e-6);
    EXPECT_NEAR(r[4], cx + bw / 2, 1e-6);
    EXPECT_NEAR(r[5], cy + bh / 2, 1e-6);
}

TEST(YoloDetectionOutput, no_detections_returns_softmaxed_input)
{
    // ncnn's in-place layer leaves the input (class channels softmaxed) as output
    Mat in = RandomMat(3, 2, 2 * 7, -1.f, 1.f);
    ParamDict pd = params(2, 2, 0.999f, {1.f, 1.f, 2.f, 2.f});
    std::string why;
    std::vector<Mat> out = run_reference("YoloDetectionOutput", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const Mat& m = out[0];
    ASSERT_EQ(m.dims, 3);
    ASSERT_EQ(m.c, 14);
    for (int k = 0; k < 2; k++)
    {
        for (int i = 0; i < 6; i++)
        {
            for (int c = 0; c < 5; c++)
                EXPECT_FLOAT_EQ(((const float*)m.channel(k * 7 + c).data)[i], ((const float*)in.channel(k * 7 + c).data)[i]);
            const float a = ((const float*)in.channel(k * 7 + 5).data)[i];
            const float b = ((const float*)in.channel(k * 7 + 6).data)[i];
            EXPECT_NEAR(((const float*)m.channel(k * 7 + 5).data)[i], std::exp(a) / (std::exp(a) + std::exp(b)), 1e-6);
            EXPECT_NEAR(((const float*)m.channel(k * 7 + 6).data)[i], std::exp(b) / (std::exp(a) + std::exp(b)), 1e-6);
        }
    }
}

TEST(YoloDetectionOutput, random_and_bad_shapes)
{
    reseed(6);
    for (int iter = 0; iter < 8; iter++)
    {
        const int nc = rand_int(1, 4), nb = rand_int(1, 3);
        std::vector<float> biases;
        for (int k = 0; k < 2 * nb; k++)
            biases.push_back(rand_float(0.5f, 4.f));
        ParamDict pd = params(nc, nb, 0.05f, biases);
        Mat in = RandomMat(rand_int(2, 8), rand_int(2, 8), nb * (5 + nc), -3.f, 3.f);
        std::string why;
        std::vector<Mat> out = run_reference("YoloDetectionOutput", pd, {}, {in}, &why);
        ASSERT_EQ(out.size(), 1u) << why;
        if (out[0].dims == 2)
            for (int r = 1; r < out[0].h; r++)
                EXPECT_LE(out[0].row(r)[1], out[0].row(r - 1)[1]);
        KITE_EXPECT_LAYER_OK(test_layer("YoloDetectionOutput", pd, {}, {in}));
    }
    std::string why;
    EXPECT_TRUE(run_reference("YoloDetectionOutput", params(2, 1, 0.1f, {1.f, 1.f}), {}, {RandomMat(2, 2, 6)}, &why).empty());
    // too few biases for num_box
    EXPECT_TRUE(run_reference("YoloDetectionOutput", params(2, 2, 0.1f, {1.f, 1.f}), {}, {RandomMat(2, 2, 14)}, &why).empty());
}
