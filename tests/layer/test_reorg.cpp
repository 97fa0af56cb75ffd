// Reorg is tested together with PixelShuffle (its inverse) in test_pixelshuffle.cpp;
// this file checks error handling only, so each layer has its own test binary.
#include "shape_testutil.h"

using namespace shapetest;

TEST(Reorg, bad_params)
{
    EXPECT_TRUE(fails("Reorg", params({{0, 0}}), {seq({2, 4, 4})}));
    EXPECT_TRUE(fails("Reorg", params({{0, 2}, {1, 2}}), {seq({2, 4, 4})}));
    EXPECT_TRUE(fails("Reorg", params({{0, 2}}), {seq({2, 2, 4, 4})}));
}
