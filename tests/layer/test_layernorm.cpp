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

TEST(LayerNorm, errors)
{
    ParamDict pd;
    pd.set(0, 8);
    EXPECT_TRUE(reference_fails("LayerNorm", pd, {RandomMat(8), RandomMat(8)}, {RandomMat(7, 3)}));
    ParamDict p0;
    p0.set(0, 0);
    EXPECT_TRUE(reference_fails("LayerNorm", p0, {}, {RandomMat(7, 3)}));
}
