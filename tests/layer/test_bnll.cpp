#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(BNLL, is_softplus)
{
    reseed(51);
    for (const Mat& in : odd_shapes(-30.f, 30.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("BNLL", ParamDict(), {}, in, [](float x, const Coord&) {
            return std::log1p(std::exp((double)x));
        }));
}
