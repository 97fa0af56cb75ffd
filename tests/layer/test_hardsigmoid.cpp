#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(HardSigmoid, defaults_alpha_0_2_beta_0_5)
{
    reseed(111);
    for (const Mat& in : odd_shapes(-5.f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("HardSigmoid", ParamDict(), {}, in, [](float x, const Coord&) {
            return std::min(1.0, std::max(0.0, 0.2 * x + 0.5));
        }));
}

TEST(HardSigmoid, alpha_beta)
{
    reseed(112);
    for (auto ab : {std::make_pair(1.f / 6, 0.5f), std::make_pair(0.3f, 0.2f), std::make_pair(1.f, 0.f)})
    {
        ParamDict pd;
        pd.set(0, ab.first);
        pd.set(1, ab.second);
        for (const Mat& in : odd_shapes(-5.f, 5.f))
            KITE_EXPECT_LAYER_OK(check_unary_layer("HardSigmoid", pd, {}, in, [ab](float x, const Coord&) {
                return std::min(1.0, std::max(0.0, (double)ab.first * x + ab.second));
            }));
    }
}
