#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Exp, natural_by_default)
{
    reseed(131);
    for (const Mat& in : odd_shapes(-4.f, 4.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Exp", ParamDict(), {}, in, [](float x, const Coord&) { return std::exp((double)x); }));
}

TEST(Exp, base_scale_shift)
{
    reseed(132);
    ParamDict pd;
    pd.set(0, 2.f);
    pd.set(1, 0.5f);
    pd.set(2, 0.3f);
    for (const Mat& in : odd_shapes(-4.f, 4.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Exp", pd, {}, in, [](float x, const Coord&) { return std::pow(2.0, 0.3 + 0.5 * x); }));
    ParamDict pe;
    pe.set(1, 1.5f);
    pe.set(2, -1.f);
    for (const Mat& in : odd_shapes(-2.f, 2.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Exp", pe, {}, in, [](float x, const Coord&) { return std::exp(-1.0 + 1.5 * x); }));
}
