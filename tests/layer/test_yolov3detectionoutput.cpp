#include "testutil.h"

#include <gtest/gtest.h>

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
