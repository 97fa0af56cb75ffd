#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(ELU, default_alpha_is_0_1)
{
    reseed(81);
    for (const Mat& in : odd_shapes(-5.f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("ELU", ParamDict(), {}, in, [](float x, const Coord&) {
            return x < 0 ? 0.1 * (std::exp((double)x) - 1.0) : (double)x;
        }));
}

TEST(ELU, alpha)
{
    reseed(82);
    for (float alpha : {1.f, 0.5f, 2.5f})
    {
        ParamDict pd;
        pd.set(0, alpha);
        for (const Mat& in : odd_shapes(-5.f, 5.f))
            KITE_EXPECT_LAYER_OK(check_unary_layer("ELU", pd, {}, in, [alpha](float x, const Coord&) {
                return x < 0 ? alpha * (std::exp((double)x) - 1.0) : (double)x;
            }));
    }
}
