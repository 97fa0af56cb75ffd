#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

// every span of `n` values starting at a multiple of n: mean 0, variance ~1
static void expect_normalised(const float* p, int n, float eps)
{
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    for (int i = 0; i < n; i++)
        s2 += (p[i] - s / n) * (p[i] - s / n);
    EXPECT_NEAR(s / n, 0.0, 1e-4);
    EXPECT_NEAR(s2 / n, 1.0, 2e-2 + eps * 50);
}

TEST(LayerNorm, rows_planes_affine)
{
    reseed(51);
    // no affine: property check
    {
        ParamDict pd;
        pd.set(0, 17);
        pd.set(1, 1e-5f);
        pd.set(2, 0);
        std::vector<Mat> out = run_all("LayerNorm", pd, {}, {RandomMat(17, 5, -3.f, 3.f)});
        ASSERT_EQ(out.size(), 1u);
        for (int y = 0; y < 5; y++)
            expect_normalised(out[0].row(y), 17, 1e-5f);
    }
    {
        ParamDict pd;
        pd.set(0, 20);
        pd.set(2, 0);
        pd.set(1, 1e-5f);
        std::vector<Mat> out = run_all("LayerNorm", pd, {}, {RandomMat(5, 4, 3)});
        ASSERT_EQ(out.size(), 1u);
        for (int q = 0; q < 3; q++)
            expect_normalised((const float*)out[0].channel(q).data, 20, 1e-5f);
    }
    // affine: y = x_hat * gamma + beta
    Mat in = RandomMat(9, 4, 3);
    Mat gamma = RandomMat(9), beta = RandomMat(9);
    ParamDict pd;
    pd.set(0, 9);
    pd.set(1, 1e-5f);
    std::vector<Mat> out = run_all("LayerNorm", pd, {gamma, beta}, {in});
    ParamDict pn;
    pn.set(0, 9);
    pn.set(1, 1e-5f);
    pn.set(2, 0);
    std::vector<Mat> plain = run_all("LayerNorm", pn, {}, {in});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(plain.size(), 1u);
    for (int q = 0; q < 3; q++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 9; x++)
                ASSERT_TRUE(near(at(out[0], x, y, 0, q), at(plain[0], x, y, 0, q) * gamma[x] + beta[x]));
    // 1-D and 4-D
    ParamDict p1;
    p1.set(0, 24);
    EXPECT_EQ(run_all("LayerNorm", p1, {RandomMat(24), RandomMat(24)}, {RandomMat(24)}).size(), 1u);
    ParamDict p4;
    p4.set(0, 5);
    EXPECT_EQ(run_all("LayerNorm", p4, {RandomMat(5), RandomMat(5)}, {RandomMat(5, 3, 2, 4)}).size(), 1u);
}

// every implementation against the reference on packable shapes (the x86 rows
// take elempack 4/8/16 along h of 2-D and c of 3-D/4-D blobs) and odd ones:
// rows, planes and channels, with and without affine, long and short spans
TEST(LayerNorm, implementations_packed)
{
    reseed(19);
    struct Case
    {
        Mat in;
        int affine_size;
    };
    const Case cases[] = {{RandomMat(37, 16, -3.f, 3.f), 37}, {RandomMat(768, 5, -3.f, 3.f), 768}, {RandomMat(9, 8, -3.f, 3.f), 0},
                          {RandomMat(7, 3, 32, -3.f, 3.f), 7}, {RandomMat(7, 3, 12, -3.f, 3.f), 21}, {RandomMat(5, 3, 2, 16, -3.f, 3.f), 30},
                          {RandomMat(48, -3.f, 3.f), 48}, {RandomMat(45, -3.f, 3.f), 45}, {RandomMat(45, -1.f, 5.f), 45}};
    for (const Case& c : cases)
        for (int affine : {0, 1})
        {
            if (affine && c.affine_size == 0)
                continue;
            ParamDict pd;
            pd.set(0, c.affine_size);
            pd.set(1, 1e-4f);
            pd.set(2, affine);
            std::vector<Mat> weights;
            if (affine)
                weights = {RandomMat(c.affine_size), RandomMat(c.affine_size)};
            SCOPED_TRACE("dims " + std::to_string(c.in.dims) + " affine_size " + std::to_string(c.affine_size) + " affine " +
                         std::to_string(affine));
            EXPECT_EQ(run_all("LayerNorm", pd, weights, {c.in}).size(), 1u);
        }
}

TEST(LayerNorm, errors)
{
    ParamDict pd;
    pd.set(0, 8);
    EXPECT_TRUE(reference_fails("LayerNorm", pd, {RandomMat(8), RandomMat(8)}, {RandomMat(7, 3)}));
    ParamDict p0;
    p0.set(0, 0);
    EXPECT_TRUE(reference_fails("LayerNorm", p0, {}, {RandomMat(7, 3)}));
}
