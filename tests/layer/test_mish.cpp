#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Mish, is_x_tanh_softplus)
{
    reseed(41);
    for (const Mat& in : odd_shapes(-10.f, 10.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Mish", ParamDict(), {}, in, [](float x, const Coord&) {
            return (double)x * std::tanh(std::log1p(std::exp((double)x)));
        }));
}
