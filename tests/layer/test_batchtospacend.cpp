// BatchToSpaceND is checked against TensorFlow's definition in
// test_spacetobatchnd.cpp (together with its inverse); here: parameters.
#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

TEST(BatchToSpaceND, bad_params)
{
    ParamDict pd;
    pd.set(0, IntArrayMat({2, 0}));
    EXPECT_TRUE(fails("BatchToSpaceND", pd, {seq({4, 3, 3})}));
    pd.set(0, IntArrayMat({2, 2}));
    pd.set(1, IntArrayMat({0, 0, 1}));
    EXPECT_TRUE(fails("BatchToSpaceND", pd, {seq({4, 3, 3})}));
    pd.set(1, IntArrayMat({0, 0, -1, 0}));
    EXPECT_TRUE(fails("BatchToSpaceND", pd, {seq({4, 3, 3})}));
    pd.set(1, IntArrayMat({0, 0, 0, 0}));
    EXPECT_TRUE(fails("BatchToSpaceND", pd, {seq({4, 3, 3, 3})})); // dims 4
}
