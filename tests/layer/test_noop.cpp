#include "elementwise_check.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

TEST(Noop, passes_inputs_through)
{
    reseed(211);
    std::vector<Mat> ins = {RandomMat(7, 5, 3), RandomMat(23), RandomMat(5, 4, 3, 2)};
    TestLayerFlags flags;
    flags.top_count = 3;
    std::vector<Mat> out;
    KITE_EXPECT_LAYER_OK(test_layer("Noop", ParamDict(), {}, ins, flags, &out));
    ASSERT_EQ(out.size(), 3u);
    for (size_t i = 0; i < ins.size(); i++)
        EXPECT_EQ(compare_mat(out[i], ins[i], 0.f), "") << i;

    flags.top_count = 1;
    KITE_EXPECT_LAYER_OK(test_layer("Noop", ParamDict(), {}, {RandomMat(9, 5)}, flags, &out));
    ASSERT_EQ(out.size(), 1u);
}
