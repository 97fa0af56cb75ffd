#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

// offsets/sizes per logical axis -> params
static ParamDict offset_params(const Shape& off, const Shape& size, const Shape& off2)
{
    const int n = (int)off.size();
    // ids per logical axis (outermost first) for dims n
    static const int ids1[4][3] = {{0, 3, 6}};
    static const int ids2[2][3] = {{1, 4, 7}, {0, 3, 6}};
    static const int ids3[3][3] = {{2, 5, 8}, {1, 4, 7}, {0, 3, 6}};
    static const int ids4[4][3] = {{2, 5, 8}, {13, 14, 15}, {1, 4, 7}, {0, 3, 6}};
    const int(*ids)[3] = n == 1 ? ids1 : n == 2 ? ids2 : n == 3 ? ids3 : ids4;
    ParamDict pd;
    for (int i = 0; i < n; i++)
    {
        pd.set(ids[i][0], off[i]);
        pd.set(ids[i][1], size[i]);
        pd.set(ids[i][2], off2[i]);
    }
    return pd;
}

TEST(Crop, offsets_sizes_every_dims)
{
    for (const Shape& s : all_dims_shapes())
    {
        const int n = (int)s.size();
        Mat in = seq(s);
        Shape off(n), size(n), off2(n, 0), rest(n, -233), want(n);
        for (int i = 0; i < n; i++)
        {
            off[i] = s[i] > 2 ? 1 : 0;
            size[i] = s[i] - off[i] > 1 ? s[i] - off[i] - 1 : 1;
        }
        auto from = [&](const Shape& o) { return [&, o](const Shape& idx) {
            Shape k = idx;
            for (int i = 0; i < n; i++)
                k[i] += o[i];
            return lget(in, k);
        }; };
        EXPECT_TRUE(matches(run("Crop", offset_params(off, size, off2), {in})[0], size, from(off))) << str(s);
        // -233 takes the rest, offset2 trims the end
        for (int i = 0; i < n; i++)
        {
            off2[i] = s[i] - off[i] > 1 ? 1 : 0;
            want[i] = s[i] - off[i] - off2[i];
        }
        EXPECT_TRUE(matches(run("Crop", offset_params(off, rest, off2), {in})[0], want, from(off))) << str(s);
        // sizes larger than what is left clamp
        Shape big(n, 100);
        EXPECT_TRUE(matches(run("Crop", offset_params(off, big, off2), {in})[0], want, from(off))) << str(s);
        // zero size (the default) is an error, not an empty blob
        Shape zero(n, 1);
        zero[n - 1] = 0;
        EXPECT_TRUE(fails("Crop", offset_params(off, zero, off2), {in})) << str(s);
    }
}

TEST(Crop, numpy_style)
{
    Mat in = seq({4, 3, 6, 5});
    ParamDict pd;
    pd.set(9, IntArrayMat({1, -4, 2}));
    pd.set(10, IntArrayMat({-1, 100, -233}));
    pd.set(11, IntArrayMat({0, -2, 3}));
    // c: [1,3)  h: [-4 -> 2, 6)  w: [2, 5)
    EXPECT_TRUE(matches(run("Crop", pd, {in})[0], {2, 3, 4, 3}, [&](const Shape& i) { return lget(in, {i[0] + 1, i[1], i[2] + 2, i[3] + 2}); }));

    Mat in2 = seq({5, 7});
    ParamDict p2;
    p2.set(9, IntArrayMat({1, 2}));
    p2.set(10, IntArrayMat({4, -1}));
    EXPECT_TRUE(matches(run("Crop", p2, {in2})[0], {3, 4}, [&](const Shape& i) { return lget(in2, {i[0] + 1, i[1] + 2}); }));

    p2.set(9, IntArrayMat({3, 2}));
    p2.set(10, IntArrayMat({3, 5}));
    EXPECT_TRUE(fails("Crop", p2, {in2})); // empty range
    ParamDict p3;
    p3.set(9, IntArrayMat({1}));
    p3.set(10, IntArrayMat({2}));
    p3.set(11, IntArrayMat({2}));
    EXPECT_TRUE(fails("Crop", p3, {in2})); // axis out of range
}

TEST(Crop, reference_blob)
{
    Mat in = seq({4, 5, 7});
    ParamDict pd = params({{0, 2}, {1, 1}, {2, 1}});
    EXPECT_TRUE(matches(run("Crop", pd, {in, seq({2, 3, 4})})[0], {2, 3, 4},
                        [&](const Shape& i) { return lget(in, {i[0] + 1, i[1] + 1, i[2] + 2}); }));
    // a dims 2 reference gives only h and w
    ParamDict p0 = params({{0, 2}, {1, 1}});
    EXPECT_TRUE(matches(run("Crop", p0, {in, seq({3, 4})})[0], {4, 3, 4}, [&](const Shape& i) { return lget(in, {i[0], i[1] + 1, i[2] + 2}); }));
    Mat in4 = seq({3, 4, 5, 6});
    ParamDict p4 = params({{0, 1}, {1, 2}, {13, 1}, {2, 1}});
    EXPECT_TRUE(matches(run("Crop", p4, {in4, seq({2, 2, 3, 4})})[0], {2, 2, 3, 4},
                        [&](const Shape& i) { return lget(in4, {i[0] + 1, i[1] + 1, i[2] + 2, i[3] + 1}); }));
    Mat in1 = seq({9});
    EXPECT_TRUE(matches(run("Crop", params({{0, 3}}), {in1, seq({4})})[0], {4}, [&](const Shape& i) { return lget(in1, {i[0] + 3}); }));
    // the reference box must stay inside
    EXPECT_TRUE(fails("Crop", pd, {in, seq({2, 5, 4})}));
    EXPECT_TRUE(fails("Crop", pd, {in, seq({4, 3, 4})}));
}

// The CPU driver on random data, every elempack: crops of the packing axis
// alone (a ViT's class token out of [768, 577]), of the inner axes alone, of
// both at once, and the two-input form; no run may fall back to the reference.
TEST(Crop, drivers_every_box_stay_in_the_driver)
{
    kite::test::reseed(1807);
    struct Case
    {
        Shape in, off, size;
    };
    const std::vector<Case> cases = {
        {{577, 24}, {0, 0}, {1, 24}},        {{16, 9}, {4, 0}, {8, 9}},          {{16, 9}, {0, 2}, {16, 5}},
        {{16, 9}, {3, 1}, {9, 6}},           {{16, 6, 5}, {4, 0, 0}, {12, 6, 5}}, {{16, 6, 5}, {0, 1, 2}, {16, 4, 3}},
        {{16, 6, 5}, {5, 1, 0}, {7, 3, 5}},  {{12, 5, 7}, {2, 2, 1}, {8, 3, 5}},  {{8, 3, 4, 5}, {0, 1, 0, 2}, {8, 2, 4, 3}},
        {{8, 3, 4, 5}, {4, 0, 1, 1}, {4, 3, 2, 3}}, {{20}, {4}, {12}},        {{20}, {3}, {9}},
    };
    for (const Case& c : cases)
    {
        Mat in = random(c.in);
        const Shape zero(c.in.size(), 0);
        const std::string r = drivers_match("Crop", offset_params(c.off, c.size, zero), {in});
        EXPECT_TRUE(r.empty()) << r << str(c.in) << " off " << str(c.off) << " size " << str(c.size);
    }
    // two inputs: the second gives w and h (and c with the same dims)
    for (const Shape& ref : std::vector<Shape>{{8, 3, 4}, {12, 3, 4}, {3, 4}})
    {
        ParamDict pd = params({{0, 1}, {1, 2}, {2, ref.size() == 3 ? 4 : 0}});
        const std::string r = drivers_match("Crop", pd, {random({16, 6, 5}), random(ref)});
        EXPECT_TRUE(r.empty()) << r << "reference blob " << str(ref);
    }
}
