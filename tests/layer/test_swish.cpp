#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Swish, is_x_times_sigmoid)
{
    reseed(31);
    for (const Mat& in : odd_shapes(-10.f, 10.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Swish", ParamDict(), {}, in, [](float x, const Coord&) {
            return (double)x / (1.0 + std::exp(-(double)x));
        }));
}
