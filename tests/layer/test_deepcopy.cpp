// DeepCopy's value checks live in test_memorydata.cpp; here: the copy is
// independent of the input.
#include "shape_testutil.h"

using namespace shapetest;

TEST(DeepCopy, independent_of_input)
{
    Mat in = seq({3, 4, 5});
    std::string why;
    std::vector<Mat> out = kite::test::run_reference("DeepCopy", ParamDict(), {}, {in}, &why, 1);
    ASSERT_EQ(out.size(), 1u) << why;
    *lptr(in, {1, 2, 3}) = -7.f;
    EXPECT_EQ(lget(out[0], {1, 2, 3}), 1.f + 1 * 20 + 2 * 5 + 3);
}
