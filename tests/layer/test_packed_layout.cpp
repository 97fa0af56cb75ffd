// The layout layers on packable sizes: the packing axis (outermost) long
// enough for elempack 4/8/16, so the x86 rows move packed data (aligned whole
// units, and scalar channels across elempacks) against the reference.
#include "shape_testutil.h"

using namespace shapetest;

namespace {

// outermost axis first: c (dims 3/4), h (dims 2), w (dims 1)
std::vector<Shape> packable_shapes(int outer)
{
    return {{outer}, {outer, 3}, {outer, 3, 5}, {outer, 2, 3, 2}};
}

} // namespace

TEST(PackedLayout, concat_every_axis)
{
    for (const Shape& base : packable_shapes(16))
    {
        const int dims = (int)base.size();
        // packing axis: lengths that keep, change and break the packing; other axes: same packing
        for (const std::vector<int>& sizes : {std::vector<int>{16, 8}, std::vector<int>{12, 4, 16}, std::vector<int>{8, 5, 3}})
        {
            std::vector<Mat> in;
            for (int s : sizes)
                in.push_back(seq(with(base, 0, s), 100.f * in.size()));
            run("Concat", params({{0, 0}}), in);
        }
        for (int axis = 1; axis < dims; axis++)
            run("Concat", params({{0, axis}}), {seq(with(base, axis, 2)), seq(with(base, axis, 3), 50.f)});
    }
}

TEST(PackedLayout, slice_every_axis)
{
    for (const Shape& base : packable_shapes(32))
    {
        const int dims = (int)base.size();
        ParamDict pd;
        pd.set(0, kite::test::IntArrayMat({16, 8, -233}));
        run("Slice", pd, {seq(base)}, 3);
        ParamDict odd;
        odd.set(0, kite::test::IntArrayMat({4, 12, 11, -233}));
        run("Slice", odd, {seq(base)}, 4);
        for (int axis = 1; axis < dims; axis++)
        {
            ParamDict pa;
            pa.set(0, kite::test::IntArrayMat({1, -233}));
            pa.set(1, axis);
            run("Slice", pa, {seq(base)}, 2);
        }
    }
}

TEST(PackedLayout, crop_channels_and_planes)
{
    Mat in = seq({32, 6, 7});
    // channels only (aligned and not), planes only, both
    run("Crop", params({{2, 16}, {3, 7}, {4, 6}, {5, 16}}), {in});
    run("Crop", params({{2, 3}, {3, 7}, {4, 6}, {5, 20}}), {in});
    run("Crop", params({{0, 1}, {1, 2}, {3, 4}, {4, 3}, {5, 32}}), {in});
    run("Crop", params({{0, 1}, {1, 2}, {2, 8}, {3, 4}, {4, 3}, {5, 8}}), {in});
    // dims 2 (ViT's class token: first row)
    ParamDict pd;
    pd.set(9, kite::test::IntArrayMat({0}));
    pd.set(10, kite::test::IntArrayMat({1}));
    pd.set(11, kite::test::IntArrayMat({0}));
    run("Crop", pd, {seq({16, 5})});
}

TEST(PackedLayout, shufflechannel)
{
    for (int c : {32, 48, 24})
        for (int g : {2, 4})
            for (int rev = 0; rev < 2; rev++)
                run("ShuffleChannel", params({{0, g}, {1, rev}}), {seq({c, 3, 5})});
}

TEST(PackedLayout, binaryop_packed_cases)
{
    using namespace kite::test;
    reseed(901);
    Mat a = RandomMat(5, 3, 16, 0.5f, 2.f);
    Mat same = RandomMat(5, 3, 16, 0.5f, 2.f);
    Mat per_channel = RandomMat(16, 0.5f, 2.f);
    Mat other = RandomMat(5, 0.5f, 2.f); // along w: through the reference
    for (int op = 0; op < 12; op++)
    {
        ParamDict pd;
        pd.set(0, op);
        for (const Mat& b : {same, per_channel, other})
            KITE_EXPECT_LAYER_OK(test_layer("BinaryOp", pd, {}, {a, b}));
        ParamDict ps = pd;
        ps.set(1, 1);
        ps.set(2, 1.5f);
        KITE_EXPECT_LAYER_OK(test_layer("BinaryOp", ps, {}, {a}));
    }
}

TEST(PackedLayout, eltwise_packed)
{
    using namespace kite::test;
    reseed(902);
    std::vector<Mat> in = {RandomMat(7, 3, 24), RandomMat(7, 3, 24), RandomMat(7, 3, 24)};
    for (int op = 0; op < 3; op++)
    {
        ParamDict pd;
        pd.set(0, op);
        KITE_EXPECT_LAYER_OK(test_layer("Eltwise", pd, {}, in));
        KITE_EXPECT_LAYER_OK(test_layer("Eltwise", pd, {}, {in[0], in[1]}));
    }
    ParamDict w;
    w.set(0, 1);
    w.set(1, FloatArrayMat({0.5f, -2.f, 3.f}));
    KITE_EXPECT_LAYER_OK(test_layer("Eltwise", w, {}, in));
}

