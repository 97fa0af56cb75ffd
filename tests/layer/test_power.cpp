#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Power, identity_by_default)
{
    reseed(151);
    for (const Mat& in : odd_shapes(-3.f, 3.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Power", ParamDict(), {}, in, [](float x, const Coord&) { return (double)x; }, 0.0));
}

TEST(Power, power_scale_shift)
{
    reseed(152);
    struct P { float power, scale, shift, lo, hi; };
    for (P p : {P{2.f, 1.5f, 0.5f, -2.f, 2.f}, P{0.5f, 1.f, 0.f, 0.01f, 4.f}, P{3.f, -1.f, 0.f, -2.f, 2.f}, P{-1.f, 1.f, 1.f, 0.2f, 3.f}})
    {
        ParamDict pd;
        pd.set(0, p.power);
        pd.set(1, p.scale);
        pd.set(2, p.shift);
        for (const Mat& in : odd_shapes(p.lo, p.hi))
            KITE_EXPECT_LAYER_OK(check_unary_layer("Power", pd, {}, in, [p](float x, const Coord&) {
                return std::pow((double)p.shift + (double)p.scale * x, (double)p.power);
            }, 2e-5));
    }
}
