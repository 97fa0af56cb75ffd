#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

static void check_slices(const Mat& in, int axis, const std::vector<int>& starts, const std::vector<int>& lens, const std::vector<Mat>& out)
{
    ASSERT_EQ(out.size(), lens.size());
    const Shape s = lshape(in);
    for (size_t i = 0; i < lens.size(); i++)
    {
        EXPECT_TRUE(matches(out[i], with(s, axis, lens[i]), [&](const Shape& idx) { return lget(in, with(idx, axis, idx[axis] + starts[i])); }))
            << "output " << i << " axis " << axis;
    }
}

TEST(Slice, sizes_even_split_indices)
{
    for (const Shape& base : all_dims_shapes())
    {
        const int dims = (int)base.size();
        for (int axis = 0; axis < dims; axis++)
        {
            Mat in = seq(with(base, axis, 7));
            ParamDict pd;
            pd.set(0, IntArrayMat({2, 4, 1}));
            pd.set(1, axis);
            check_slices(in, axis, {0, 2, 6}, {2, 4, 1}, run("Slice", pd, {in}, 3));

            // -233: (rest) / (outputs left) -> 2, 2, 3
            pd.set(0, IntArrayMat({-233, -233, -233}));
            pd.set(1, axis - dims);
            check_slices(in, axis, {0, 2, 4}, {2, 2, 3}, run("Slice", pd, {in}, 3));

            ParamDict pi;
            pi.set(2, IntArrayMat({1, -3}));
            pi.set(1, axis);
            check_slices(in, axis, {0, 1, 4}, {1, 3, 3}, run("Slice", pi, {in}, 3));
        }
    }
}

// channel slices of a packable blob: groups of 4 stay packed, others unpack
TEST(Slice, packable_channels)
{
    Mat in = seq({12, 3, 5});
    for (const std::vector<int>& sizes : {std::vector<int>{4, 8}, std::vector<int>{6, 6}})
    {
        ParamDict pd;
        pd.set(0, IntArrayMat(sizes));
        pd.set(1, 0);
        check_slices(in, 0, {0, sizes[0]}, sizes, run("Slice", pd, {in}, 2));
    }
    // shufflenet_v2's 116 -> 58 + 58 (elempack 4 into unpacked halves: lane
    // pairs inside a unit and across two), 5x3 pixels: vector steps plus tails
    Mat wide = seq({116, 3, 5});
    ParamDict pd;
    pd.set(0, IntArrayMat({58, 58}));
    pd.set(1, 0);
    check_slices(wide, 0, {0, 58}, {58, 58}, run("Slice", pd, {wide}, 2));
}

TEST(Slice, errors)
{
    Mat in = seq({3, 7});
    ParamDict pd;
    pd.set(0, IntArrayMat({2, 6}));
    pd.set(1, 1);
    EXPECT_TRUE(fails("Slice", pd, {in}, 2)); // too long
    pd.set(0, IntArrayMat({2, 3}));
    EXPECT_TRUE(fails("Slice", pd, {in}, 2)); // does not cover the axis
    pd.set(0, IntArrayMat({2}));
    EXPECT_TRUE(fails("Slice", pd, {in}, 2)); // fewer slices than outputs
    pd.set(0, IntArrayMat({2, -233}));
    pd.set(1, 2);
    EXPECT_TRUE(fails("Slice", pd, {in}, 2)); // axis out of range
    ParamDict pi;
    pi.set(2, IntArrayMat({4, 2}));
    pi.set(1, 1);
    EXPECT_TRUE(fails("Slice", pi, {in}, 3)); // indices going backwards
    EXPECT_TRUE(fails("Slice", ParamDict(), {in}, 2));
}
