#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(Clip, defaults_pass_everything)
{
    reseed(101);
    TestLayerFlags flags;
    flags.test_fp16 = false; // +-1e30 is beyond fp16's range
    for (const Mat& in : odd_shapes(-1e30f, 1e30f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("Clip", ParamDict(), {}, in, [](float x, const Coord&) { return (double)x; }, 0.0, flags));
}

TEST(Clip, min_max)
{
    reseed(102);
    for (auto mm : {std::make_pair(-0.5f, 0.7f), std::make_pair(0.f, 6.f), std::make_pair(0.2f, 0.2f)})
    {
        ParamDict pd;
        pd.set(0, mm.first);
        pd.set(1, mm.second);
        for (const Mat& in : odd_shapes(-8.f, 8.f))
            KITE_EXPECT_LAYER_OK(check_unary_layer("Clip", pd, {}, in, [mm](float x, const Coord&) {
                return (double)std::min(std::max(x, mm.first), mm.second);
            }, 0.0));
    }
}
