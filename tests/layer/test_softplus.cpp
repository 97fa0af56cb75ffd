#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Softplus, formula)
{
    reseed(65);
    for (Mat in : {RandomMat(17, -30.f, 30.f), RandomMat(5, 4, 3, -8.f, 8.f), RandomMat(3, 2, 2, 3, -8.f, 8.f)})
    {
        std::vector<Mat> out = run_all("Softplus", ParamDict(), {}, {in});
        ASSERT_EQ(out.size(), 1u);
        Mat a = to_fp32_pack1(in);
        const float x = a[0];
        EXPECT_TRUE(near(out[0][0], (float)std::log1p(std::exp((double)x)), 1e-5f));
    }
}
