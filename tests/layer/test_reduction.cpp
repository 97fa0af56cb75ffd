#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

static float apply_op(int op, const std::vector<float>& v, float coeff)
{
    double s = 0, a = 0, sq = 0, p = 1, se = 0;
    float mx = -1e30f, mn = 1e30f;
    for (float x : v)
        s += x, a += std::fabs(x), sq += x * x, p *= x, se += std::exp(x), mx = std::max(mx, x), mn = std::min(mn, x);
    double r;
    switch (op)
    {
    case 0: r = s; break;
    case 1: r = a; break;
    case 2: r = sq; break;
    case 3: r = s / v.size(); break;
    case 4: r = mx; break;
    case 5: r = mn; break;
    case 6: r = p; break;
    case 7: r = a; break;
    case 8: r = std::sqrt(sq); break;
    case 9: r = std::log(s); break;
    default: r = std::log(se); break;
    }
    return (float)(r * coeff);
}

TEST(Reduction, every_op_reduce_all)
{
    reseed(62);
    for (int op = 0; op <= 10; op++)
    {
        Mat in = RandomMat(5, 4, 3, op == 6 || op == 9 ? 0.5f : -1.f, op == 6 || op == 9 ? 1.2f : 1.f);
        std::vector<float> v;
        for (int c = 0; c < 3; c++)
            for (int y = 0; y < 4; y++)
                for (int x = 0; x < 5; x++)
                    v.push_back(at(in, x, y, 0, c));
        for (int keep : {0, 1})
        {
            ParamDict pd;
            pd.set(0, op);
            pd.set(1, 1);
            pd.set(2, 0.5f);
            pd.set(4, keep);
            std::vector<Mat> out = run_all("Reduction", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            if (keep)
                ASSERT_TRUE(same_shape(out[0], 3, 1, 1, 1, 1));
            else
                ASSERT_TRUE(same_shape(out[0], 1, 1));
            EXPECT_TRUE(near(out[0][0], apply_op(op, v, 0.5f), 1e-4f)) << "op " << op;
        }
    }
}

TEST(Reduction, axes_shapes_and_values)
{
    reseed(63);
    Mat in = RandomMat(5, 4, 3); // c = 3, h = 4, w = 5
    struct Case
    {
        std::vector<int> axes;
        int keep;
        int dims, w, h, c;
    } cases[] = {
        {{0}, 0, 2, 5, 4, 1}, {{1}, 0, 2, 5, 3, 1}, {{2}, 0, 2, 4, 3, 1}, {{-1}, 0, 2, 4, 3, 1},
        {{1, 2}, 0, 1, 3, 1, 1}, {{0, 2}, 0, 1, 4, 1, 1}, {{0}, 1, 3, 5, 4, 1}, {{1, 2}, 1, 3, 1, 1, 3},
    };
    for (const Case& cs : cases)
    {
        ParamDict pd;
        pd.set(0, 3); // mean
        pd.set(1, 0);
        pd.set(3, IntArrayMat(cs.axes));
        pd.set(4, cs.keep);
        pd.set(5, 1);
        std::vector<Mat> out = run_all("Reduction", pd, {}, {in});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_TRUE(same_shape(out[0], cs.dims, cs.w, cs.h, 1, cs.c)) << shape_string(out[0]);
    }
    // mean over h (axis 1) of channel 2, column 3
    ParamDict pd;
    pd.set(0, 3);
    pd.set(1, 0);
    pd.set(3, IntArrayMat({1}));
    pd.set(5, 1);
    std::vector<Mat> out = run_all("Reduction", pd, {}, {in});
    ASSERT_EQ(out.size(), 1u);
    float s = 0.f;
    for (int y = 0; y < 4; y++)
        s += at(in, 3, y, 0, 2);
    EXPECT_TRUE(near(at(out[0], 3, 2), s / 4));
    // 4-D and 2-D through every implementation
    for (int op : {0, 4, 8, 10})
    {
        ParamDict p4;
        p4.set(0, op);
        p4.set(1, 0);
        p4.set(3, IntArrayMat({1, 3}));
        p4.set(5, 1);
        EXPECT_EQ(run_all("Reduction", p4, {}, {RandomMat(4, 3, 2, 3)}).size(), 1u);
        p4.set(3, IntArrayMat({0}));
        EXPECT_EQ(run_all("Reduction", p4, {}, {RandomMat(4, 3)}).size(), 1u);
    }
}

TEST(Reduction, errors)
{
    ParamDict old;
    old.set(1, 0);
    old.set(3, IntArrayMat({1}));
    EXPECT_TRUE(reference_fails("Reduction", old, {}, {RandomMat(4, 4)}));
    ParamDict pd;
    pd.set(1, 0);
    pd.set(3, IntArrayMat({3}));
    pd.set(5, 1);
    EXPECT_TRUE(reference_fails("Reduction", pd, {}, {RandomMat(4, 4)}));
    ParamDict op;
    op.set(0, 11);
    EXPECT_TRUE(reference_fails("Reduction", op, {}, {RandomMat(4, 4)}));
}

// The CPU driver on random data: every operation, every set of axes (and
// reduce_all), keepdims on and off, coeff, packable and odd sizes on every
// dims; no run may fall back to the reference.
TEST(Reduction, drivers_every_op_axes_and_pack)
{
    reseed(1802);
    // logical shapes, outermost first
    const std::vector<std::vector<int> > shapes = {{37}, {16}, {12, 9}, {16, 5}, {16, 7, 5}, {12, 3, 4}, {5, 3, 7}, {8, 3, 4, 5}, {5, 2, 3, 4},
                                                  // H x W sums of 64 elements and more per output (the GPU's work-group kernels)
                                                  {9, 13, 11}};
    for (const std::vector<int>& s : shapes)
    {
        const int n = (int)s.size();
        std::string name = "{";
        for (int v : s)
            name += std::to_string(v) + ",";
        name += "}";
        for (int op = 0; op <= 10; op++)
        {
            // every op on reduce_all, on the packing axis alone and on the
            // inner axes alone; the other axis sets (the same code for every
            // op) with mean only
            // logsum needs positive sums, prod values near 1
            // (closer to 1 for products of a thousand: fp16 storage holds them)
            const bool many = s.size() == 3 && s[0] * s[1] * s[2] > 1000;
            const float lo = op == 9 ? 0.1f : op == 6 ? (many ? 0.97f : 0.8f) : -1.f;
            const float hi = op == 6 ? (many ? 1.03f : 1.25f) : 1.f;
            Mat in = n == 1 ? RandomMat(s[0], lo, hi) : n == 2 ? RandomMat(s[1], s[0], lo, hi)
                     : n == 3 ? RandomMat(s[2], s[1], s[0], lo, hi) : RandomMat(s[3], s[2], s[1], s[0], lo, hi);
            // every non-empty set of axes (bit i: logical axis i), then reduce_all
            for (int mask = 1; mask <= (1 << n); mask++)
                for (int keepdims = 0; keepdims < 2; keepdims++)
                {
                    if (op != 3 && mask != (1 << n) && mask != 1 && mask != (1 << n) - 2)
                        continue;
                    ParamDict pd;
                    pd.set(0, op);
                    pd.set(2, op % 3 == 0 ? 0.5f : 1.f);
                    pd.set(4, keepdims);
                    pd.set(5, 1);
                    std::vector<int> axes;
                    if (mask == (1 << n))
                        pd.set(1, 1);
                    else
                    {
                        pd.set(1, 0);
                        for (int a = 0; a < n; a++)
                            if (mask & (1 << a))
                                axes.push_back(a == n - 1 && (mask & 1) ? a - n : a); // a negative axis too
                        pd.set(3, IntArrayMat(axes));
                    }
                    TestLayerFlags flags;
                    flags.forbid_reference = true;
                    const std::string r = test_layer("Reduction", pd, {}, {in}, flags);
                    EXPECT_TRUE(r.empty()) << r << name << " op " << op << " axes mask " << mask << " keepdims " << keepdims;
                }
        }
    }
}
