#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Threshold, step_at_threshold)
{
    reseed(161);
    for (float t : {0.f, 0.3f, -0.7f})
    {
        ParamDict pd;
        if (t != 0.f)
            pd.set(0, t);
        for (const Mat& in : odd_shapes(-1.f, 1.f))
            KITE_EXPECT_LAYER_OK(check_unary_layer("Threshold", pd, {}, in, [t](float x, const Coord&) { return x > t ? 1.0 : 0.0; }, 0.0));
    }
    // exactly at the threshold is 0
    Mat in(2);
    in[0] = 0.3f;
    in[1] = 0.30001f;
    ParamDict pd;
    pd.set(0, 0.3f);
    std::string why;
    std::vector<Mat> out = run_reference("Threshold", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    EXPECT_EQ(out[0][0], 0.f);
    EXPECT_EQ(out[0][1], 1.f);
}
