#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(InstanceNorm, channels_normalised_and_affine)
{
    reseed(53);
    Mat in = RandomMat(7, 6, 5, -2.f, 3.f);
    Mat gamma = RandomMat(5), beta = RandomMat(5);
    ParamDict pd;
    pd.set(0, 5);
    pd.set(1, 1e-5f);
    std::vector<Mat> out = run_all("InstanceNorm", pd, {gamma, beta}, {in});
    ASSERT_EQ(out.size(), 1u);
    for (int q = 0; q < 5; q++)
    {
        double s = 0, s2 = 0;
        for (int i = 0; i < 42; i++)
        {
            float v = (((const float*)out[0].channel(q).data)[i] - beta[q]) / gamma[q];
            s += v;
            s2 += v * v;
        }
        EXPECT_NEAR(s / 42, 0.0, 1e-3);
        EXPECT_NEAR(s2 / 42, 1.0, 1e-2);
    }
    pd.set(2, 0);
    EXPECT_EQ(run_all("InstanceNorm", pd, {}, {in}).size(), 1u);
    ParamDict bad;
    bad.set(0, 4);
    EXPECT_TRUE(reference_fails("InstanceNorm", bad, {RandomMat(4), RandomMat(4)}, {in}));
    EXPECT_TRUE(reference_fails("InstanceNorm", bad, {RandomMat(4), RandomMat(4)}, {RandomMat(4, 4)}));
}
