#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(AbsVal, is_fabs)
{
    reseed(61);
    for (const Mat& in : odd_shapes(-3.f, 3.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("AbsVal", ParamDict(), {}, in, [](float x, const Coord&) { return std::fabs((double)x); }, 0.0));
}
