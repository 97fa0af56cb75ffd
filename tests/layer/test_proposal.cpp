#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Proposal, single_cell_anchor)
{
    // one cell, zero deltas: proposals are the anchors themselves, clipped to the image
    Mat score(1, 1, 18), bbox(1, 1, 36), info(3);
    score.fill(0.f);
    bbox.fill(0.f);
    // make anchor 4 (ratio 1, scale 16: 256 x 256 around (8, 8)) the best
    ((float*)score.channel(9 + 4).data)[0] = 0.9f;
    info[0] = 600.f; // image h
    info[1] = 800.f; // image w
    info[2] = 1.f;
    ParamDict pd;
    pd.set(3, 1); // after_nms_topN
    std::string why;
    std::vector<Mat> out = run_reference("Proposal", pd, {}, {score, bbox, info}, &why, 2);
    ASSERT_EQ(out.size(), 2u) << why;
    ASSERT_EQ(out[0].dims, 3);
    ASSERT_EQ(out[0].c, 1);
    const float* r = out[0].channel(0);
    // anchor (8 - 128, 8 - 128, 8 + 128, 8 + 128) clipped to [0, 799] x [0, 599]
    EXPECT_FLOAT_EQ(r[0], 0.f);
    EXPECT_FLOAT_EQ(r[1], 0.f);
    EXPECT_FLOAT_EQ(r[2], 136.f);
    EXPECT_FLOAT_EQ(r[3], 136.f);
    EXPECT_FLOAT_EQ(((const float*)out[1].channel(0).data)[0], 0.9f);
}

TEST(Proposal, random_properties)
{
    reseed(21);
    for (int iter = 0; iter < 10; iter++)
    {
        const int w = rand_int(2, 8), h = rand_int(2, 8);
        Mat score = RandomMat(w, h, 18, 0.f, 1.f);
        Mat bbox = RandomMat(w, h, 36, -0.3f, 0.3f);
        Mat info(3);
        info[0] = h * 16.f;
        info[1] = w * 16.f;
        info[2] = 1.f;
        ParamDict pd;
        pd.set(2, 50);
        pd.set(3, 20);
        pd.set(4, 0.5f);
        pd.set(5, 4);
        std::string why;
        std::vector<Mat> out = run_reference("Proposal", pd, {}, {score, bbox, info}, &why, 2);
        ASSERT_EQ(out.size(), 2u) << why;
        ASSERT_LE(out[0].c, 20);
        for (int i = 0; i < out[0].c; i++)
        {
            const float* r = out[0].channel(i);
            EXPECT_GE(r[0], 0.f);
            EXPECT_GE(r[1], 0.f);
            EXPECT_LE(r[2], w * 16.f - 1);
            EXPECT_LE(r[3], h * 16.f - 1);
            EXPECT_GE(r[2] - r[0] + 1, 4.f);
            if (i > 0)
                EXPECT_LE(((const float*)out[1].channel(i).data)[0], ((const float*)out[1].channel(i - 1).data)[0]);
        }
        TestLayerFlags f;
        f.top_count = 2;
        KITE_EXPECT_LAYER_OK(test_layer("Proposal", pd, {}, {score, bbox, info}, f));
    }
}

TEST(Proposal, bad_shapes)
{
    ParamDict pd;
    std::string why;
    Mat info(3);
    info.fill(100.f);
    EXPECT_TRUE(run_reference("Proposal", pd, {}, {RandomMat(3, 3, 17), RandomMat(3, 3, 36), info}, &why).empty());
    EXPECT_TRUE(run_reference("Proposal", pd, {}, {RandomMat(3, 3, 18), RandomMat(3, 2, 36), info}, &why).empty());
    EXPECT_TRUE(run_reference("Proposal", pd, {}, {RandomMat(3, 3, 18), RandomMat(3, 3, 36), RandomMat(2)}, &why).empty());
}
