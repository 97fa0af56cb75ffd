#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(TanH, matches_std_tanh)
{
    reseed(21);
    for (const Mat& in : odd_shapes(-6.f, 6.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("TanH", ParamDict(), {}, in, [](float x, const Coord&) { return std::tanh((double)x); }));
}
