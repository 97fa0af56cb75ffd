#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(Bias, per_channel)
{
    reseed(56);
    Mat in = RandomMat(5, 4, 6), b = RandomMat(6);
    ParamDict pd;
    pd.set(0, 6);
    std::vector<Mat> out = run_all("Bias", pd, {b}, {in});
    ASSERT_EQ(out.size(), 1u);
    for (int c = 0; c < 6; c++)
        EXPECT_TRUE(near(at(out[0], 4, 3, 0, c), at(in, 4, 3, 0, c) + b[c]));
    EXPECT_EQ(run_all("Bias", pd, {b}, {RandomMat(3, 2, 2, 6)}).size(), 1u);
    EXPECT_TRUE(reference_fails("Bias", pd, {b}, {RandomMat(5, 4, 5)}));
}
