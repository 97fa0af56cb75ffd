// Squeeze is tested with ExpandDims (test_expanddims.cpp); here: a squeeze
// undoes an expand.
#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

TEST(Squeeze, undoes_expanddims)
{
    for (const Shape& s : {Shape{7}, Shape{3, 5}, Shape{4, 3, 5}})
    {
        Mat in = seq(s);
        ParamDict pe;
        pe.set(3, IntArrayMat({0}));
        Mat e = run("ExpandDims", pe, {in})[0];
        Mat q = run("Squeeze", pe, {e})[0];
        EXPECT_TRUE(matches(q, s, [&](const Shape& i) { return lget(in, i); })) << str(s);
    }
}
