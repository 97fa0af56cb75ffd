#include "shape_testutil.h"

#include <algorithm>

using namespace shapetest;

// ncnn's numbering, written independently: the orders are the permutations
// of the axes as new (w, h, [d,] c) listed from the old axes; for dims 3 the
// old axes are w h c and the orders enumerate
//   w h c, h w c, w c h, c w h, h c w, c h w
// (new c fixed at the outermost position first); dims 4 extends that with
// the new c being c, d, h, w in turn (6 orders each).
static std::vector<Shape> orders_dims3()
{
    // perm in outermost-first logical axes (c=0, h=1, w=2): out axis i = in axis p[i]
    return {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
}

static std::vector<Shape> orders_dims4()
{
    // new c = old c, d, h, w; within each block the six (w h d) arrangements as in dims 3
    std::vector<Shape> r;
    const int c = 0, d = 1, h = 2, w = 3;
    const int outer[4] = {c, d, h, w};
    for (int oc : outer)
    {
        std::vector<int> rest; // remaining old axes in w, h, d, c "rank" order
        for (int a : {w, h, d, c})
            if (a != oc)
                rest.push_back(a);
        // the six new (w, h, d) of the three remaining axes, ncnn's order
        const int arr[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}};
        for (auto& a : arr)
            r.push_back({oc, rest[a[2]], rest[a[1]], rest[a[0]]}); // outermost first: c, d, h, w
    }
    return r;
}

static void check(const Mat& in, int order, const Shape& perm)
{
    const Shape s = lshape(in);
    Shape outs(s.size());
    for (size_t i = 0; i < s.size(); i++)
        outs[i] = s[perm[i]];
    EXPECT_TRUE(matches(run("Permute", params({{0, order}}), {in})[0], outs, [&](const Shape& idx) {
        Shape k(s.size());
        for (size_t i = 0; i < s.size(); i++)
            k[perm[i]] = idx[i];
        return lget(in, k);
    })) << "dims " << s.size() << " order " << order;
}

TEST(Permute, all_orders)
{
    check(seq({3, 5}), 0, {0, 1});
    check(seq({3, 5}), 1, {1, 0});
    std::vector<Shape> o3 = orders_dims3();
    for (int i = 0; i < 6; i++)
        check(seq({4, 3, 5}), i, o3[i]);
    std::vector<Shape> o4 = orders_dims4();
    for (int i = 0; i < 24; i++)
        check(seq({4, 2, 3, 5}), i, o4[i]);
    check(seq({7}), 1, {0});
}

// packable channel counts: the x86 rows take elempack 4/8/16 inputs (the
// harness feeds every one) and pack their outputs along the new outermost axis
TEST(Permute, packed_layouts)
{
    check(seq({16, 5}), 0, {0, 1});
    check(seq({16, 8}), 1, {1, 0});
    std::vector<Shape> o3 = orders_dims3();
    for (int i = 0; i < 6; i++)
    {
        check(seq({16, 3, 5}), i, o3[i]);
        check(seq({12, 16, 8}), i, o3[i]);
    }
    std::vector<Shape> o4 = orders_dims4();
    for (int i = 0; i < 24; i++)
        check(seq({8, 2, 4, 3}), i, o4[i]);
}

TEST(Permute, errors)
{
    EXPECT_TRUE(fails("Permute", params({{0, 24}}), {seq({2, 3, 4, 5})}));
    EXPECT_TRUE(fails("Permute", params({{0, 6}}), {seq({3, 4, 5})}));
    EXPECT_TRUE(fails("Permute", params({{0, 2}}), {seq({4, 5})}));
}

// The CPU driver on random data, unpacked inputs included (SSD heads of 63 or
// 126 channels, YOLO heads): every order of dims 2..4 and the 1-D identity;
// no run may fall back to the reference.
TEST(Permute, drivers_every_order_stay_in_the_driver)
{
    kite::test::reseed(1808);
    for (int order = 0; order < 2; order++)
        for (const Shape& s : std::vector<Shape>{{16, 5}, {7, 5}})
        {
            const std::string r = drivers_match("Permute", params({{0, order}}), {random(s)});
            EXPECT_TRUE(r.empty()) << r << str(s) << " order " << order;
        }
    for (int order = 0; order < 6; order++)
        // {13, 9, 3}, {11, 5, 2}, {9, 6, 4}: planar NHWC images (order 4 deinterleaves rows);
        // {16, 7, 3}, {32, 9, 2}: the same packed by 4/8/16 (4x4 transposes and a tail)
        for (const Shape& s : std::vector<Shape>{{63, 5, 6}, {16, 3, 5}, {12, 16, 8}, {3, 4, 5}, {13, 9, 3}, {11, 5, 2},
                                                 {9, 6, 4}, {16, 7, 3}, {32, 9, 2}})
        {
            const std::string r = drivers_match("Permute", params({{0, order}}), {random(s)});
            EXPECT_TRUE(r.empty()) << r << str(s) << " order " << order;
        }
    for (int order = 0; order < 24; order++)
        for (const Shape& s : std::vector<Shape>{{8, 2, 4, 3}, {5, 2, 3, 4}})
        {
            const std::string r = drivers_match("Permute", params({{0, order}}), {random(s)});
            EXPECT_TRUE(r.empty()) << r << str(s) << " order " << order;
        }
    const std::string r = drivers_match("Permute", ParamDict(), {random({13})});
    EXPECT_TRUE(r.empty()) << r;
}
