#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Log, natural_by_default)
{
    reseed(141);
    for (const Mat& in : odd_shapes(0.01f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Log", ParamDict(), {}, in, [](float x, const Coord&) { return std::log((double)x); }));
}

TEST(Log, base_scale_shift)
{
    reseed(142);
    ParamDict pd;
    pd.set(0, 10.f);
    pd.set(1, 2.f);
    pd.set(2, 0.5f);
    for (const Mat& in : odd_shapes(0.01f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Log", pd, {}, in, [](float x, const Coord&) { return std::log10(0.5 + 2.0 * x); }));
    ParamDict p2;
    p2.set(0, 2.f);
    for (const Mat& in : odd_shapes(0.01f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Log", p2, {}, in, [](float x, const Coord&) { return std::log2((double)x); }));
}

TEST(Log, nonpositive_gives_nan_or_inf_not_a_crash)
{
    Mat in(3);
    in[0] = -1.f;
    in[1] = 0.f;
    in[2] = 1.f;
    std::string why;
    std::vector<Mat> out = run_reference("Log", ParamDict(), {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    EXPECT_TRUE(std::isnan(out[0][0]));
    EXPECT_TRUE(std::isinf(out[0][1]) && out[0][1] < 0);
    EXPECT_EQ(out[0][2], 0.f);
}
