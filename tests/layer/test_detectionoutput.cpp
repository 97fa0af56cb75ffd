#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace kite;
using namespace kite::test;

static std::vector<Mat> run(const ParamDict& pd, const std::vector<Mat>& in, std::string* why)
{
    return run_reference("DetectionOutput", pd, {}, in, why);
}

static Mat priorbox_blob(const std::vector<std::vector<float> >& boxes)
{
    Mat m((int)boxes.size() * 4, 2);
    for (size_t i = 0; i < boxes.size(); i++)
    {
        for (int k = 0; k < 4; k++)
            m.row(0)[i * 4 + k] = boxes[i][k];
        m.row(1)[i * 4 + 0] = 0.1f;
        m.row(1)[i * 4 + 1] = 0.1f;
        m.row(1)[i * 4 + 2] = 0.2f;
        m.row(1)[i * 4 + 3] = 0.2f;
    }
    return m;
}

static float iou(const float* a, const float* b)
{
    const float iw = std::max(0.f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    const float ih = std::max(0.f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    const float inter = iw * ih;
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}

TEST(DetectionOutput, obvious_nms)
{
    // A and B overlap with IoU 0.75, C is apart; zero deltas decode to the priors
    Mat pb = priorbox_blob({{0.1f, 0.1f, 0.5f, 0.5f}, {0.1f, 0.1f, 0.5f, 0.4f}, {0.6f, 0.6f, 0.9f, 0.9f}});
    Mat loc(12);
    loc.fill(0.f);
    // 3 classes (0 = background); per prior: bg, class 1, class 2
    Mat conf(9);
    const float c[9] = {0.05f, 0.9f, 0.05f, 0.1f, 0.8f, 0.1f, 0.2f, 0.1f, 0.7f};
    for (int i = 0; i < 9; i++)
        conf[i] = c[i];

    ParamDict pd;
    pd.set(0, 3);
    pd.set(1, 0.45f);
    pd.set(4, 0.3f);
    std::string why;
    std::vector<Mat> out = run(pd, {loc, conf, pb}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const Mat& m = out[0];
    ASSERT_EQ(m.dims, 2);
    ASSERT_EQ(m.w, 6);
    ASSERT_EQ(m.h, 2); // B suppressed by A in class 1
    const float want[2][6] = {{1, 0.9f, 0.1f, 0.1f, 0.5f, 0.5f}, {2, 0.7f, 0.6f, 0.6f, 0.9f, 0.9f}};
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 6; k++)
            EXPECT_NEAR(m.row(r)[k], want[r][k], 1e-6) << "row " << r << " col " << k;

    // a looser NMS threshold keeps B; keep_top_k 2 then drops C (0.7 < 0.8)
    pd.set(1, 0.9f);
    pd.set(3, 2);
    out = run(pd, {loc, conf, pb}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].h, 2);
    EXPECT_NEAR(out[0].row(1)[1], 0.8f, 1e-6);
    EXPECT_NEAR(out[0].row(1)[5], 0.4f, 1e-6);
}

TEST(DetectionOutput, decode_center_size)
{
    Mat pb = priorbox_blob({{0.2f, 0.2f, 0.6f, 0.4f}});
    Mat loc(4);
    loc[0] = 1.f;
    loc[1] = -2.f;
    loc[2] = 0.5f;
    loc[3] = -1.f;
    Mat conf(2);
    conf[0] = 0.1f;
    conf[1] = 0.9f;
    ParamDict pd;
    pd.set(0, 2);
    std::string why;
    std::vector<Mat> out = run(pd, {loc, conf, pb}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    // centre (0.4, 0.3), size (0.4, 0.2)
    const float cx = 0.1f * 1.f * 0.4f + 0.4f;
    const float cy = 0.1f * -2.f * 0.2f + 0.3f;
    const float w = std::exp(0.2f * 0.5f) * 0.4f;
    const float h = std::exp(0.2f * -1.f) * 0.2f;
    const float* r = out[0].row(0);
    EXPECT_NEAR(r[2], cx - w / 2, 1e-6);
    EXPECT_NEAR(r[3], cy - h / 2, 1e-6);
    EXPECT_NEAR(r[4], cx + w / 2, 1e-6);
    EXPECT_NEAR(r[5], cy + h / 2, 1e-6);
}

TEST(DetectionOutput, no_detections_gives_empty_output)
{
    Mat pb = priorbox_blob({{0.1f, 0.1f, 0.5f, 0.5f}});
    Mat loc(4);
    loc.fill(0.f);
    Mat conf(2);
    conf[0] = 0.8f;
    conf[1] = 0.2f;
    ParamDict pd;
    pd.set(0, 2);
    std::string why;
    std::vector<Mat> out = run(pd, {loc, conf, pb}, &why);
    ASSERT_EQ(out.size(), 1u) << why; // forward succeeded
    EXPECT_TRUE(out[0].empty());
}

TEST(DetectionOutput, random_properties)
{
    reseed(3);
    for (int iter = 0; iter < 20; iter++)
    {
        const int n = rand_int(1, 80);
        const int classes = rand_int(2, 6);
        std::vector<std::vector<float> > boxes;
        for (int i = 0; i < n; i++)
        {
            float cx = rand_float(0.1f, 0.9f), cy = rand_float(0.1f, 0.9f), w = rand_float(0.05f, 0.4f), h = rand_float(0.05f, 0.4f);
            boxes.push_back({cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2});
        }
        Mat pb = priorbox_blob(boxes);
        Mat loc = RandomMat(n * 4, -1.f, 1.f);
        Mat conf(n * classes);
        for (int i = 0; i < n; i++)
        {
            float s = 0.f;
            for (int c = 0; c < classes; c++)
                s += (conf[i * classes + c] = std::exp(rand_float(-3.f, 3.f)));
            for (int c = 0; c < classes; c++)
                conf[i * classes + c] /= s;
        }
        const float thr = 0.2f, nms = 0.4f;
        const int keep = rand_int(1, 30);
        ParamDict pd;
        pd.set(0, classes);
        pd.set(1, nms);
        pd.set(3, keep);
        pd.set(4, thr);
        std::string why;
        std::vector<Mat> out = run(pd, {loc, conf, pb}, &why);
        ASSERT_EQ(out.size(), 1u) << why;
        if (out[0].empty())
            continue;
        const Mat& m = out[0];
        ASSERT_LE(m.h, keep);
        for (int r = 0; r < m.h; r++)
        {
            const float* a = m.row(r);
            EXPECT_GE(a[0], 1.f);
            EXPECT_LT(a[0], (float)classes);
            EXPECT_GT(a[1], thr);
            if (r > 0)
                EXPECT_LE(a[1], m.row(r - 1)[1]);
            for (int q = 0; q < r; q++)
            {
                const float* b = m.row(q);
                if (a[0] == b[0])
                    EXPECT_LE(iou(a + 2, b + 2), nms + 1e-6f) << "same-class boxes survived NMS";
            }
        }
        KITE_EXPECT_LAYER_OK(test_layer("DetectionOutput", pd, {}, {loc, conf, pb}));
    }
}

TEST(DetectionOutput, mxnet_style)
{
    // priorbox (4, num_prior), confidence (num_prior, num_class), variances from params
    Mat pb(4, 2);
    const float p[8] = {0.1f, 0.1f, 0.3f, 0.3f, 0.6f, 0.6f, 0.8f, 0.8f};
    for (int i = 0; i < 8; i++)
        pb[i] = p[i];
    Mat loc(8);
    loc.fill(0.f);
    Mat conf(2, 3);
    const float c[6] = {0.1f, 0.8f, 0.6f, 0.1f, 0.3f, 0.1f}; // rows: class 0, 1, 2
    for (int i = 0; i < 6; i++)
        conf[i] = c[i];
    ParamDict pd;
    pd.set(0, -233);
    pd.set(4, 0.2f);
    std::string why;
    std::vector<Mat> out = run(pd, {loc, conf, pb}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].h, 2);
    EXPECT_FLOAT_EQ(out[0].row(0)[0], 1.f);
    EXPECT_FLOAT_EQ(out[0].row(0)[1], 0.6f);
    EXPECT_NEAR(out[0].row(0)[2], 0.1f, 1e-6);
    EXPECT_FLOAT_EQ(out[0].row(1)[0], 2.f);
    EXPECT_FLOAT_EQ(out[0].row(1)[1], 0.3f);
}

TEST(DetectionOutput, bad_shapes)
{
    Mat pb = priorbox_blob({{0.1f, 0.1f, 0.5f, 0.5f}, {0.2f, 0.2f, 0.6f, 0.6f}});
    ParamDict pd;
    pd.set(0, 3);
    std::string why;
    // confidence too small for 2 priors x 3 classes
    EXPECT_TRUE(run(pd, {RandomMat(8), RandomMat(5), pb}, &why).empty());
    // location too small
    EXPECT_TRUE(run(pd, {RandomMat(7), RandomMat(6), pb}, &why).empty());
    // priorbox without the variance row
    EXPECT_TRUE(run(pd, {RandomMat(8), RandomMat(6), RandomMat(8)}, &why).empty());
    // num_class 0 is rejected at load time
    ParamDict zero;
    EXPECT_TRUE(run(zero, {RandomMat(8), RandomMat(6), pb}, &why).empty());
}
