#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(GLU, halves_along_axes)
{
    reseed(64);
    // 3-D, axis 0 (c): out = a * sigmoid(b) with b the second half of channels
    Mat in = RandomMat(5, 4, 6);
    ParamDict pd;
    pd.set(0, 0);
    std::vector<Mat> out = run_all("GLU", pd, {}, {in});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 3, 5, 4, 1, 3));
    EXPECT_TRUE(near(at(out[0], 2, 1, 0, 1), at(in, 2, 1, 0, 1) / (1.f + std::exp(-at(in, 2, 1, 0, 4)))));
    // axis -1 (w)
    pd.set(0, -1);
    out = run_all("GLU", pd, {}, {RandomMat(8, 3)});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(same_shape(out[0], 2, 4, 3));
    for (int dims = 1; dims <= 4; dims++)
        for (int axis = 0; axis < dims; axis++)
        {
            Mat m = dims == 1 ? RandomMat(8) : dims == 2 ? RandomMat(4, 6) : dims == 3 ? RandomMat(4, 6, 2) : RandomMat(2, 4, 6, 2);
            ParamDict p;
            p.set(0, axis);
            EXPECT_EQ(run_all("GLU", p, {}, {m}).size(), 1u);
        }
    ParamDict odd;
    odd.set(0, 0);
    EXPECT_TRUE(reference_fails("GLU", odd, {}, {RandomMat(7)}));
}
