#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

TEST(Tile, axis_tiles_every_dims)
{
    for (const Shape& s : all_dims_shapes())
    {
        Mat in = seq(s);
        const int n = (int)s.size();
        for (int axis = 0; axis < n; axis++)
        {
            for (int a : {axis, axis - n})
            {
                EXPECT_TRUE(matches(run("Tile", params({{0, a}, {1, 3}}), {in})[0], with(s, axis, s[axis] * 3),
                                    [&](const Shape& i) { return lget(in, with(i, axis, i[axis] % s[axis])); }))
                    << str(s) << " axis " << a;
            }
        }
    }
    EXPECT_TRUE(fails("Tile", params({{0, 3}, {1, 2}}), {seq({2, 3, 4})}));
    EXPECT_TRUE(fails("Tile", params({{0, 0}, {1, 0}}), {seq({2, 3, 4})}));
}

TEST(Tile, repeats)
{
    // same dims: numpy.tile
    Mat a = seq({2, 3});
    ParamDict pd;
    pd.set(2, IntArrayMat({2, 3}));
    EXPECT_TRUE(matches(run("Tile", pd, {a})[0], {4, 9}, [&](const Shape& i) { return lget(a, {i[0] % 2, i[1] % 3}); }));
    // fewer repeats: applied to the innermost axes
    pd.set(2, IntArrayMat({2}));
    EXPECT_TRUE(matches(run("Tile", pd, {a})[0], {2, 6}, [&](const Shape& i) { return lget(a, {i[0], i[1] % 3}); }));
    // more repeats: new outer axes for dims 1/2 inputs
    pd.set(2, IntArrayMat({3, 1, 2}));
    EXPECT_TRUE(matches(run("Tile", pd, {a})[0], {3, 2, 6}, [&](const Shape& i) { return lget(a, {i[1], i[2] % 3}); }));
    Mat v = seq({5});
    pd.set(2, IntArrayMat({2, 1, 3, 2}));
    EXPECT_TRUE(matches(run("Tile", pd, {v})[0], {2, 1, 3, 10}, [&](const Shape& i) { return lget(v, {i[3] % 5}); }));
    // a dims 3 blob keeps c, h, w and gets d from the second repeat (ncnn)
    Mat b = seq({2, 3, 5});
    pd.set(2, IntArrayMat({2, 3, 2, 1}));
    EXPECT_TRUE(matches(run("Tile", pd, {b})[0], {4, 3, 6, 5}, [&](const Shape& i) { return lget(b, {i[0] % 2, i[2] % 3, i[3]}); }));
    // repeats win over axis/tiles
    pd.set(0, 0);
    pd.set(1, 5);
    pd.set(2, IntArrayMat({1, 2}));
    EXPECT_TRUE(matches(run("Tile", pd, {a})[0], {2, 6}, [&](const Shape& i) { return lget(a, {i[0], i[1] % 3}); }));
    ParamDict bad;
    bad.set(2, IntArrayMat({1, 1, 1, 1, 2}));
    EXPECT_TRUE(fails("Tile", bad, {a}));
    bad.set(2, IntArrayMat({0, 2}));
    EXPECT_TRUE(fails("Tile", bad, {a}));
}
