#include "shape_testutil.h"

using namespace shapetest;

TEST(Concat, every_axis_every_dims)
{
    for (const Shape& base : all_dims_shapes())
    {
        const int dims = (int)base.size();
        for (int axis = 0; axis < dims; axis++)
        {
            const int sizes[3] = {2, 3, 1};
            std::vector<Mat> in;
            for (int i = 0; i < 3; i++)
                in.push_back(seq(with(base, axis, sizes[i]), 1000.f * i));
            for (int a : {axis, axis - dims})
            {
                std::vector<Mat> out = run("Concat", params({{0, a}}), in);
                ASSERT_EQ(out.size(), 1u);
                EXPECT_TRUE(matches(out[0], with(base, axis, 6), [&](const Shape& idx) {
                    int k = idx[axis], i = 0;
                    while (k >= sizes[i])
                        k -= sizes[i++];
                    return lget(in[i], with(idx, axis, k));
                })) << "dims " << dims << " axis " << a;
            }
        }
    }
}

TEST(Concat, single_input_and_errors)
{
    Mat a = seq({2, 3, 5});
    std::vector<Mat> out = run("Concat", params({{0, 1}}), {a});
    EXPECT_TRUE(matches(out[0], {2, 3, 5}, [&](const Shape& i) { return lget(a, i); }));
    EXPECT_TRUE(fails("Concat", params({{0, 3}}), {a, a}));             // axis out of range
    EXPECT_TRUE(fails("Concat", params({{0, -4}}), {a, a}));
    EXPECT_TRUE(fails("Concat", params({{0, 0}}), {a, seq({2, 4, 5})})); // other axis differs
    EXPECT_TRUE(fails("Concat", params({{0, 0}}), {a, seq({3, 5})}));    // dims differ
}

// channel counts that pack by 4 (packed GPU/CPU paths) and a mix with one
// that does not; 4 + 4 and 4 + 12 gather elempack-4 inputs into elempack 8/16
// (x86: runs of 4 lanes)
TEST(Concat, packable_channels)
{
    for (int last : {8, 3, 4, 12})
    {
        std::vector<Mat> out = run("Concat", params({{0, 0}}), {seq({4, 3, 5}), seq({last, 3, 5})});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].c * out[0].elempack, 4 + last);
    }
    // shufflenet_v2's 58 + 58 unpacked -> 116 (x86: 4x4 transposes from the
    // planes, units straddling the inputs), 5x3 pixels: vector steps plus tails
    std::vector<Mat> out = run("Concat", params({{0, 0}}), {seq({58, 3, 5}), seq({58, 3, 5}, 1000.f)});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].c * out[0].elempack, 116);
}

// The layouts detection heads give the CPU driver: 1-D blobs of different
// lengths (SSD's flattened heads, packable or not), 2-D along w (PriorBox
// rows), 3-D along every axis, packable and odd channel counts; no run may
// fall back to the reference.
TEST(Concat, drivers_every_axis_stay_in_the_driver)
{
    kite::test::reseed(1806);
    const std::vector<std::vector<Shape> > sets = {
        {{16}, {12}, {7}, {24}}, {{40}, {8}},
        {{2, 16}, {2, 9}, {2, 24}}, {{12, 5}, {4, 5}, {3, 5}},
        {{16, 3, 5}, {12, 3, 5}, {5, 3, 5}}, {{16, 3, 5}, {16, 4, 5}}, {{8, 3, 5}, {8, 3, 2}}, {{5, 3, 5}, {5, 3, 7}},
    };
    for (const std::vector<Shape>& shapes : sets)
    {
        const int dims = (int)shapes[0].size();
        // the one axis where the shapes differ (0 when they agree)
        int axis = 0;
        for (int a = 0; a < dims; a++)
            if (shapes[0][a] != shapes[1][a])
                axis = a;
        std::vector<Mat> in;
        for (const Shape& s : shapes)
            in.push_back(random(s));
        const std::string r = drivers_match("Concat", params({{0, axis}}), in);
        EXPECT_TRUE(r.empty()) << r << str(shapes[0]) << " axis " << axis;
    }
}
