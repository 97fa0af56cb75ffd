#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Sigmoid, matches_logistic)
{
    reseed(11);
    for (const Mat& in : odd_shapes(-12.f, 12.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Sigmoid", ParamDict(), {}, in, [](float x, const Coord&) {
            return 1.0 / (1.0 + std::exp(-(double)x));
        }));
}

TEST(Sigmoid, saturates_without_nan)
{
    reseed(12);
    KITE_EXPECT_LAYER_OK(check_unary_layer("Sigmoid", ParamDict(), {}, RandomMat(31, -100.f, 100.f), [](float x, const Coord&) {
        return 1.0 / (1.0 + std::exp(-(double)x));
    }));
}
