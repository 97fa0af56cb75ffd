#include "shape_testutil.h"

using namespace shapetest;

TEST(CumulativeSum, every_axis_every_dims)
{
    for (const Shape& s : all_dims_shapes())
    {
        Mat in = seq(s);
        const int n = (int)s.size();
        for (int axis = 0; axis < n; axis++)
        {
            for (int a : {axis, axis - n})
            {
                EXPECT_TRUE(matches(run("CumulativeSum", params({{0, a}}), {in})[0], s, [&](const Shape& i) {
                    float sum = 0.f;
                    for (int k = 0; k <= i[axis]; k++)
                        sum += lget(in, with(i, axis, k));
                    return sum;
                }, 1e-6f)) << str(s) << " axis " << a;
            }
        }
    }
    EXPECT_TRUE(fails("CumulativeSum", params({{0, 3}}), {seq({2, 3, 4})}));
}
