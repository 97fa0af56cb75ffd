#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Dropout, identity_by_default)
{
    reseed(171);
    for (const Mat& in : odd_shapes(-3.f, 3.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Dropout", ParamDict(), {}, in, [](float x, const Coord&) { return (double)x; }, 0.0));
}

TEST(Dropout, scale)
{
    reseed(172);
    ParamDict pd;
    pd.set(0, 0.8f);
    for (const Mat& in : odd_shapes(-3.f, 3.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Dropout", pd, {}, in, [](float x, const Coord&) { return (double)(x * 0.8f); }, 0.0));
}
