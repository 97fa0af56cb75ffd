#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

static double selu(double x, double alpha, double lambda)
{
    return lambda * (x < 0 ? alpha * (std::exp(x) - 1.0) : x);
}

TEST(SELU, default_constants)
{
    reseed(91);
    for (const Mat& in : odd_shapes(-5.f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("SELU", ParamDict(), {}, in, [](float x, const Coord&) {
            return selu(x, 1.6732632423543772, 1.0507009873554805);
        }));
}

TEST(SELU, custom_alpha_lambda)
{
    reseed(92);
    ParamDict pd;
    pd.set(0, 1.5f);
    pd.set(1, 2.f);
    for (const Mat& in : odd_shapes(-5.f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("SELU", pd, {}, in, [](float x, const Coord&) { return selu(x, 1.5, 2.0); }));
}
