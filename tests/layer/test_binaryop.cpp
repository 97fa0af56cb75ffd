#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace kite;
using namespace kite::test;

// independent definitions of the 12 ops (double precision where rounding differs)
static double want_op(int op, float a, float b)
{
    switch (op)
    {
    case 0: return (double)(a + b);
    case 1: return (double)(a - b);
    case 2: return (double)(a * b);
    case 3: return (double)a / b;
    case 4: return a > b ? a : b;
    case 5: return a < b ? a : b;
    case 6: return std::pow((double)a, (double)b);
    case 7: return (double)(b - a);
    case 8: return (double)b / a;
    case 9: return std::pow((double)b, (double)a);
    case 10: return std::atan2((double)a, (double)b);
    case 11: return std::atan2((double)b, (double)a);
    }
    return NAN;
}

// an input range where the op is finite and well conditioned
static void op_range(int op, float* lo, float* hi)
{
    *lo = -2.f;
    *hi = 2.f;
    if (op == 3 || op == 8)
        *lo = 0.5f;
    if (op == 6 || op == 9)
        *lo = 0.2f;
}

static Mat make(const std::vector<int>& s, float lo, float hi)
{
    if (s.size() == 1)
        return RandomMat(s[0], lo, hi);
    if (s.size() == 2)
        return RandomMat(s[0], s[1], lo, hi);
    if (s.size() == 3)
        return RandomMat(s[0], s[1], s[2], lo, hi);
    return RandomMat(s[0], s[1], s[2], s[3], lo, hi);
}

// One broadcasting pattern, written out by hand: each operand's axes (in Mat
// order w, h, d, c) name the output axis they run along ('w', 'h', 'd', 'c').
struct Pattern
{
    const char* name;
    std::vector<int> a;
    const char* amap;
    std::vector<int> b;
    const char* bmap;
    int outdims;
};

static int axis_index(char ax)
{
    return ax == 'w' ? 0 : ax == 'h' ? 1 : ax == 'd' ? 2 : 3;
}

// value of operand m (shape s, axis map) at output coordinate o[4]
static float operand_at(const Mat& m, const std::vector<int>& s, const char* map, const int o[4])
{
    int idx[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < s.size(); i++)
        idx[i] = s[i] == 1 ? 0 : o[axis_index(map[i])];
    Coord c{0, 0, 0, 0};
    if (s.size() == 1)
        c = Coord{idx[0], 0, 0, 0};
    else if (s.size() == 2)
        c = Coord{idx[0], idx[1], 0, 0};
    else if (s.size() == 3)
        c = Coord{idx[0], idx[1], 0, idx[2]};
    else
        c = Coord{idx[0], idx[1], idx[2], idx[3]};
    return *elem_ptr(m, c);
}

static std::string check_pattern(int op, const Pattern& p)
{
    float lo, hi;
    op_range(op, &lo, &hi);
    Mat A = make(p.a, lo, hi);
    Mat B = make(p.b, lo, hi);

    // expected output extents: the largest size along each output axis
    int ext[4] = {1, 1, 1, 1};
    for (size_t i = 0; i < p.a.size(); i++)
        ext[axis_index(p.amap[i])] = std::max(ext[axis_index(p.amap[i])], p.a[i]);
    for (size_t i = 0; i < p.b.size(); i++)
        ext[axis_index(p.bmap[i])] = std::max(ext[axis_index(p.bmap[i])], p.b[i]);

    ParamDict pd;
    pd.set(0, op);
    std::vector<Mat> out;
    std::string report = test_layer("BinaryOp", pd, {}, {A, B}, TestLayerFlags(), &out);
    if (!report.empty())
        return std::string(p.name) + ": " + report;
    const Mat& C = out[0];
    const int want_c = p.outdims >= 3 ? ext[3] : 1;
    const int want_d = p.outdims == 4 ? ext[2] : 1;
    const int want_h = p.outdims >= 2 ? ext[1] : 1;
    if (C.dims != p.outdims || C.w != ext[0] || C.h != want_h || C.d != want_d || C.c != want_c)
        return std::string(p.name) + ": output shape " + shape_string(C);

    std::string err;
    for_each_coord(C, [&](const Coord& c) {
        if (!err.empty())
            return;
        const int o[4] = {c.x, c.y, c.z, c.q};
        const float a = operand_at(A, p.a, p.amap, o);
        const float b = operand_at(B, p.b, p.bmap, o);
        const double w = want_op(op, a, b);
        const double g = *elem_ptr(C, c);
        if (!close_enough(g, w, 1e-5))
            err = std::string(p.name) + ": op " + std::to_string(op) + " " + fmt_mismatch("BinaryOp", c, a, g, w);
    });
    return err;
}

static const std::vector<Pattern>& patterns()
{
    static const std::vector<Pattern> v = {
        // equal shapes
        {"1d_same", {13}, "w", {13}, "w", 1},
        {"2d_same", {9, 5}, "wh", {9, 5}, "wh", 2},
        {"3d_same", {7, 5, 3}, "whc", {7, 5, 3}, "whc", 3},
        {"4d_same", {5, 4, 3, 2}, "whdc", {5, 4, 3, 2}, "whdc", 4},
        // channel counts that pack by 4: packed same-shape and broadcast paths
        {"3d_same_packable", {7, 5, 8}, "whc", {7, 5, 8}, "whc", 3},
        {"3d_1d_channel_packable", {7, 5, 8}, "whc", {8}, "c", 3},
        // one value against anything
        {"1d_scalar", {13}, "w", {1}, "w", 1},
        {"2d_scalar", {9, 5}, "wh", {1}, "w", 2},
        {"3d_scalar", {7, 5, 3}, "whc", {1}, "w", 3},
        {"4d_scalar", {5, 4, 3, 2}, "whdc", {1}, "w", 4},
        {"scalar_3d", {1}, "w", {7, 5, 3}, "whc", 3},
        {"scalar_1d", {1}, "w", {13}, "w", 1},
        // 1-D against 2-D: per row when n == h, else along w
        {"2d_1d_rows", {9, 5}, "wh", {5}, "h", 2},
        {"1d_2d_rows", {5}, "h", {9, 5}, "wh", 2},
        {"2d_1d_w", {9, 5}, "wh", {9}, "w", 2},
        {"1d_2d_w", {9}, "w", {9, 5}, "wh", 2},
        // square: per row wins
        {"2d_1d_square", {5, 5}, "wh", {5}, "h", 2},
        // 1-D against 3-D/4-D: per channel when n == c, else along w
        {"3d_1d_channel", {7, 5, 3}, "whc", {3}, "c", 3},
        {"1d_3d_channel", {3}, "c", {7, 5, 3}, "whc", 3},
        {"3d_1d_w", {7, 5, 3}, "whc", {7}, "w", 3},
        {"1d_3d_w", {7}, "w", {7, 5, 3}, "whc", 3},
        {"3d_1d_cube", {4, 4, 4}, "whc", {4}, "c", 3},
        {"4d_1d_channel", {5, 4, 3, 2}, "whdc", {2}, "c", 4},
        {"1d_4d_channel", {2}, "c", {5, 4, 3, 2}, "whdc", 4},
        {"4d_1d_w", {5, 4, 3, 2}, "whdc", {5}, "w", 4},
        {"1d_4d_w", {5}, "w", {5, 4, 3, 2}, "whdc", 4},
        // 2-D [w,h] against 3-D: w runs along h, h along c
        {"3d_2d", {7, 5, 3}, "whc", {5, 3}, "hc", 3},
        {"2d_3d", {5, 3}, "hc", {7, 5, 3}, "whc", 3},
        // 2-D against 4-D: w along d, h along c
        {"4d_2d", {5, 4, 3, 2}, "whdc", {3, 2}, "dc", 4},
        {"2d_4d", {3, 2}, "dc", {5, 4, 3, 2}, "whdc", 4},
        // 3-D against 4-D: w along h, h along d, c along c
        {"4d_3d", {5, 4, 3, 2}, "whdc", {4, 3, 2}, "hdc", 4},
        {"3d_4d", {4, 3, 2}, "hdc", {5, 4, 3, 2}, "whdc", 4},
        // same rank, size-1 axes repeat
        {"2d_row", {9, 5}, "wh", {1, 5}, "wh", 2},
        {"2d_col", {9, 5}, "wh", {9, 1}, "wh", 2},
        {"2d_outer", {9, 1}, "wh", {1, 5}, "wh", 2},
        {"3d_per_channel", {7, 5, 3}, "whc", {1, 1, 3}, "whc", 3},
        {"3d_per_channel_rev", {1, 1, 3}, "whc", {7, 5, 3}, "whc", 3},
        {"3d_plane", {7, 5, 3}, "whc", {7, 5, 1}, "whc", 3},
        {"3d_w1", {7, 5, 3}, "whc", {1, 5, 3}, "whc", 3},
        {"3d_h1_rev", {7, 1, 3}, "whc", {7, 5, 3}, "whc", 3},
        {"3d_mixed", {7, 1, 3}, "whc", {1, 5, 1}, "whc", 3},
        {"3d_big_channels", {17, 3, 16}, "whc", {1, 1, 16}, "whc", 3},
        {"4d_per_channel", {5, 4, 3, 2}, "whdc", {1, 1, 1, 2}, "whdc", 4},
        {"4d_volume", {5, 4, 3, 2}, "whdc", {5, 4, 3, 1}, "whdc", 4},
        {"4d_d1", {5, 4, 3, 2}, "whdc", {5, 4, 1, 2}, "whdc", 4},
        {"4d_wd1_rev", {1, 4, 1, 2}, "whdc", {5, 4, 3, 2}, "whdc", 4},
        {"4d_mixed", {5, 1, 3, 1}, "whdc", {1, 4, 1, 2}, "whdc", 4},
    };
    return v;
}

TEST(BinaryOp, every_op_every_broadcast_pattern)
{
    reseed(241);
    for (int op = 0; op < 12; op++)
        for (const Pattern& p : patterns())
            KITE_EXPECT_LAYER_OK(check_pattern(op, p));
}

TEST(BinaryOp, with_scalar_in_place)
{
    reseed(242);
    const float bs[] = {0.7f, 0.7f, -1.3f, 0.7f, 0.25f, 0.25f, 2.f, 0.7f, 1.3f, 1.7f, 0.6f, -0.6f};
    for (int op = 0; op < 12; op++)
    {
        float lo, hi;
        op_range(op, &lo, &hi);
        ParamDict pd;
        pd.set(0, op);
        pd.set(1, 1);
        pd.set(2, bs[op]);
        const float b = bs[op];
        SCOPED_TRACE("op " + std::to_string(op));
        for (const Mat& in : odd_shapes(lo, hi))
            KITE_EXPECT_LAYER_OK(check_unary_layer("BinaryOp", pd, {}, in, [op, b](float x, const Coord&) { return want_op(op, x, b); }));
    }
}

TEST(BinaryOp, flags_follow_with_scalar)
{
    Layer* l = create_layer("BinaryOp");
    ASSERT_NE(l, nullptr);
    ParamDict pd;
    EXPECT_EQ(l->load_param(pd), 0);
    EXPECT_FALSE(l->one_blob_only);
    EXPECT_FALSE(l->support_inplace);
    pd.set(1, 1);
    EXPECT_EQ(l->load_param(pd), 0);
    EXPECT_TRUE(l->one_blob_only);
    EXPECT_TRUE(l->support_inplace);
    delete l;
}

TEST(BinaryOp, incompatible_shapes_are_errors)
{
    reseed(243);
    ParamDict pd;
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(7), RandomMat(6)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(9, 5), RandomMat(4)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(7, 5, 3), RandomMat(4)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(7, 5, 3), RandomMat(7, 5, 4)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(7, 5, 3), RandomMat(4, 3)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(5, 4, 3, 2), RandomMat(4, 4, 2)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(5, 4, 3, 2), RandomMat(5, 4, 2, 2)}), -1);
    EXPECT_EQ(reference_forward_ret("BinaryOp", pd, {}, {RandomMat(7, 5, 3)}), -1);
    ParamDict bad;
    bad.set(0, 12);
    int load_ret = 0;
    reference_forward_ret("BinaryOp", bad, {}, {RandomMat(7), RandomMat(7)}, &load_ret);
    EXPECT_EQ(load_ret, -1);
}

// The per-channel and per-row broadcasts real graphs use (a
// squeeze-excitation scale [1,1,c] times [w,h,c], either side, 1-D [c]; a
// transformer's bias row [w,1] plus [w,h]; same-rank operands whose axes of 1
// repeat) stay in the CPU driver for every
// op it has a kernel for: no run falls back to the reference.
TEST(BinaryOp, per_channel_broadcasts_stay_in_the_driver)
{
    reseed(1805);
    // add, sub and rdiv: a commutative op and two whose operands swap
    // (every op's kernel is tested by the broadcast patterns above)
    for (int op : {0, 1, 8})
    {
        float lo, hi;
        op_range(op, &lo, &hi);
        ParamDict pd;
        pd.set(0, op);
        for (int c : {16, 12, 5})
        {
            const std::vector<std::vector<Mat> > pairs = {
                {RandomMat(7, 5, c, lo, hi), RandomMat(1, 1, c, lo, hi)},
                {RandomMat(1, 1, c, lo, hi), RandomMat(7, 5, c, lo, hi)},
                {RandomMat(7, 5, c, lo, hi), RandomMat(c, lo, hi)},
                {RandomMat(5, 3, 2, c, lo, hi), RandomMat(1, 1, 1, c, lo, hi)},
                {RandomMat(1, 1, 1, c, lo, hi), RandomMat(5, 3, 2, c, lo, hi)},
                // one row along w: a transformer's bias [w,1] + [w,h], 1-D [w], 3-D and 4-D rows
                {RandomMat(19, c, lo, hi), RandomMat(19, 1, lo, hi)},
                {RandomMat(19, 1, lo, hi), RandomMat(19, c, lo, hi)},
                {RandomMat(19, c, lo, hi), RandomMat(19, lo, hi)},
                {RandomMat(16, c, lo, hi), RandomMat(16, lo, hi)},
                {RandomMat(7, 3, c, lo, hi), RandomMat(7, 1, 1, lo, hi)},
                {RandomMat(7, 1, 1, lo, hi), RandomMat(7, 3, c, lo, hi)},
                {RandomMat(5, 3, 2, c, lo, hi), RandomMat(5, 1, 1, 1, lo, hi)},
                // one value per row of a 2-D blob: 1-D [h] and [1,h], either side
                {RandomMat(9, c, lo, hi), RandomMat(c, lo, hi)},
                {RandomMat(9, c, lo, hi), RandomMat(1, c, lo, hi)},
                {RandomMat(1, c, lo, hi), RandomMat(9, c, lo, hi)},
                // same rank, axes of 1 repeat (swin_t): the attention bias
                // [w,h,heads,1] and shift mask [w,h,1,windows] against
                // [w,h,heads,windows], the padding grid [1,h,c] + [w,1,1], a plane
                {RandomMat(7, 6, 3, c, lo, hi), RandomMat(7, 6, 3, 1, lo, hi)},
                {RandomMat(7, 6, 3, 1, lo, hi), RandomMat(7, 6, 3, c, lo, hi)},
                {RandomMat(7, 6, 3, c, lo, hi), RandomMat(7, 6, 1, c, lo, hi)},
                {RandomMat(7, 6, 1, c, lo, hi), RandomMat(7, 6, 3, c, lo, hi)},
                {RandomMat(1, 5, c, lo, hi), RandomMat(9, 1, 1, lo, hi)},
                {RandomMat(9, 1, 1, lo, hi), RandomMat(1, 5, c, lo, hi)},
                {RandomMat(7, 5, c, lo, hi), RandomMat(7, 5, 1, lo, hi)},
                {RandomMat(7, 1, c, lo, hi), RandomMat(1, 5, 1, lo, hi)},
            };
            for (size_t i = 0; i < pairs.size(); i++)
            {
                TestLayerFlags flags;
                flags.forbid_reference = true;
                const std::string r = test_layer("BinaryOp", pd, {}, pairs[i], flags);
                EXPECT_TRUE(r.empty()) << r << " op " << op << " channels " << c << " pair " << i;
            }
        }
    }
}

// A layer norm over the channels of a CHW blob, as tensorflow2kite writes
// Keras' LayerNormalization (ConvNeXt): x - mean with the mean one plane
// [w,h,1], -mean * rstd (plane against the full blob, either side) and
// rstd * gamma (a plane against one value per channel, either side: the
// output takes every channel). fp32 stays in the CPU driver at every elempack
// and 1 and 2 threads; fp16 storage is not covered by these kernels.
TEST(BinaryOp, plane_broadcasts_stay_in_the_driver)
{
    reseed(2713);
    for (int op : {0, 1, 2, 8})
    {
        float lo, hi;
        op_range(op, &lo, &hi);
        ParamDict pd;
        pd.set(0, op);
        for (int c : {16, 12, 5, 32})
        {
            const std::vector<std::vector<Mat> > pairs = {
                {RandomMat(7, 5, c, lo, hi), RandomMat(7, 5, 1, lo, hi)},
                {RandomMat(7, 5, 1, lo, hi), RandomMat(7, 5, c, lo, hi)},
                {RandomMat(9, 3, 1, lo, hi), RandomMat(1, 1, c, lo, hi)},
                {RandomMat(1, 1, c, lo, hi), RandomMat(9, 3, 1, lo, hi)},
            };
            for (size_t i = 0; i < pairs.size(); i++)
            {
                TestLayerFlags flags;
                flags.forbid_reference = true;
                flags.test_fp16 = false;
                const std::string r = test_layer("BinaryOp", pd, {}, pairs[i], flags);
                EXPECT_TRUE(r.empty()) << r << " op " << op << " channels " << c << " pair " << i;
            }
        }
    }
}

// A blob of one value against a vector or a feature map, on either side (the
// mean of a 1-D vector in a layer norm: ConvNeXt's head), fp32, every elempack
TEST(BinaryOp, single_value_blob_stays_in_the_driver)
{
    reseed(2715);
    for (int op : {0, 1, 2, 8})
    {
        float lo, hi;
        op_range(op, &lo, &hi);
        ParamDict pd;
        pd.set(0, op);
        const std::vector<std::vector<Mat> > pairs = {
            {RandomMat(37, lo, hi), RandomMat(1, lo, hi)},
            {RandomMat(1, lo, hi), RandomMat(48, lo, hi)},
            {RandomMat(7, 5, 16, lo, hi), RandomMat(1, 1, 1, lo, hi)},
            {RandomMat(1, 1, 1, lo, hi), RandomMat(9, 3, 12, lo, hi)},
        };
        for (size_t i = 0; i < pairs.size(); i++)
        {
            TestLayerFlags flags;
            flags.forbid_reference = true;
            flags.test_fp16 = false;
            const std::string r = test_layer("BinaryOp", pd, {}, pairs[i], flags);
            EXPECT_TRUE(r.empty()) << r << " op " << op << " pair " << i;
        }
    }
}
