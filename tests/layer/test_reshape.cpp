#include "cpu.h"
#include "layer.h"
#include "shape_testutil.h"

using namespace shapetest;

// reshape keeps the row-major logical order
static float flat(const Mat& in, size_t k)
{
    const Shape s = lshape(in);
    Shape idx(s.size());
    for (int i = (int)s.size() - 1; i >= 0; i--)
    {
        idx[i] = (int)(k % s[i]);
        k /= s[i];
    }
    return lget(in, idx);
}

static size_t linear(const Shape& s, const Shape& idx)
{
    size_t k = 0;
    for (size_t i = 0; i < s.size(); i++)
        k = k * s[i] + idx[i];
    return k;
}

static ParamDict whdc(int w, int h, int d, int c)
{
    ParamDict pd;
    pd.set(0, w);
    pd.set(1, h);
    pd.set(11, d);
    pd.set(2, c);
    return pd;
}

TEST(Reshape, every_dims_and_flatten)
{
    struct Case
    {
        Shape in;
        int w, h, d, c;
        Shape out;
    };
    const std::vector<Case> cases = {
        {{4, 3, 5}, -1, -233, -233, -233, {60}},
        {{4, 3, 5}, 15, -1, -233, -233, {4, 15}},
        {{4, 3, 5}, -1, 6, -233, -233, {6, 10}},
        {{4, 3, 5}, 3, 5, -233, 4, {4, 5, 3}},
        {{4, 3, 5}, 0, -1, -233, 2, {2, 6, 5}},
        {{4, 3, 5}, 5, 3, 2, 2, {2, 2, 3, 5}},
        {{4, 3, 5}, 5, 3, -1, 2, {2, 2, 3, 5}},
        {{24}, 2, 3, -233, -1, {4, 3, 2}},
        {{2, 9}, 3, -1, -233, 3, {3, 2, 3}},
        {{3, 2, 5, 3}, 0, 0, -233, -1, {6, 5, 3}},
        {{3, 2, 5, 3}, 5, 3, 3, -1, {2, 3, 3, 5}},
        {{7}, 0, -233, -233, -233, {7}},
    };
    for (const Case& c : cases)
    {
        Mat in = seq(c.in);
        EXPECT_TRUE(matches(run("Reshape", whdc(c.w, c.h, c.d, c.c), {in})[0], c.out,
                            [&](const Shape& idx) { return flat(in, linear(c.out, idx)); }))
            << str(c.in) << " -> " << str(c.out);
    }
    for (const Shape& s : all_dims_shapes())
    {
        Mat in = seq(s);
        size_t total = 1;
        for (int v : s)
            total *= v;
        EXPECT_TRUE(matches(run("Flatten", ParamDict(), {in})[0], {(int)total}, [&](const Shape& idx) { return flat(in, idx[0]); }));
    }
}

TEST(Reshape, expressions_and_errors)
{
    Mat in = seq({4, 3, 5});
    ParamDict pd;
    pd.set(6, std::string("0w,*(0h,0c)"));
    EXPECT_TRUE(matches(run("Reshape", pd, {in})[0], {12, 5}, [&](const Shape& idx) { return flat(in, linear({12, 5}, idx)); }));
    ParamDict p2;
    p2.set(6, std::string("1w,-1"));
    EXPECT_TRUE(matches(run("Reshape", p2, {in, seq({2, 6})})[0], {10, 6}, [&](const Shape& idx) { return flat(in, linear({10, 6}, idx)); }));

    EXPECT_TRUE(fails("Reshape", whdc(7, -1, -233, -233), {in}));    // 60 not divisible by 7
    EXPECT_TRUE(fails("Reshape", whdc(5, 5, -233, -233), {in}));     // count mismatch
    EXPECT_TRUE(fails("Reshape", whdc(-1, -1, -233, -233), {in}));   // two to infer
    EXPECT_TRUE(fails("Reshape", whdc(-233, -233, -233, -233), {in}));
    EXPECT_TRUE(fails("Reshape", whdc(-5, 2, -233, -233), {in}));
}

// The CPU drivers on random data, every input elempack: outputs that regroup
// the axes inside a channel, split or merge channels, change the packing
// axis or the dims, from and to 1-D (no copy), and the shape-expression
// form; Flatten of every dims. No run may fall back to the reference.
TEST(Reshape, drivers_every_layout_change)
{
    kite::test::reseed(1803);
    struct Case
    {
        Shape in;
        int w, h, d, c;
    };
    const int X = -233;
    const std::vector<Case> cases = {
        {{16, 6, 5}, 30, 16, X, X}, {{16, 6, 5}, -1, X, X, X},  {{16, 6, 5}, 5, 6, X, 16}, {{16, 6, 5}, 10, 3, X, 16},
        {{16, 6, 5}, 5, 3, X, 32},  {{16, 6, 5}, -1, 8, X, X},  {{16, 6, 5}, 5, 3, 2, 16}, {{16, 6, 5}, 4, 20, X, 6},
        {{12, 7}, 84, X, X, X},     {{12, 7}, 12, 7, X, X},     {{12, 7}, 7, 3, X, 4},     {{16, 5}, 5, 2, 2, 4},
        {{48}, 6, 8, X, X},         {{48}, 3, 4, X, 4},         {{48}, 2, 2, 3, 4},        {{40}, 5, -1, X, X},
        {{8, 3, 4, 5}, 20, 24, X, X}, {{8, 3, 4, 5}, -1, X, X, 8}, {{8, 3, 4, 5}, 5, 4, X, 24}, {{5, 3, 7}, 35, 3, X, X},
        {{5, 3, 7}, 7, 3, X, 5},    {{4, 5, 6}, -1, 4, X, X},   {{4, 5, 6}, 6, 5, X, 4},   {{16, 1, 1}, -1, X, X, X},
    };
    for (const Case& c : cases)
    {
        Mat in = random(c.in);
        const std::string r = drivers_match("Reshape", whdc(c.w, c.h, c.d, c.c), {in});
        EXPECT_TRUE(r.empty()) << r << str(c.in) << " -> w " << c.w << " h " << c.h << " d " << c.d << " c " << c.c;
    }
    for (const Shape& s : std::vector<Shape>{{16, 6, 5}, {12, 3, 7}, {5, 3, 7}, {8, 3, 4, 5}, {12, 7}, {5, 7}, {48}, {13}})
    {
        Mat in = random(s);
        const std::string r = drivers_match("Flatten", ParamDict(), {in});
        EXPECT_TRUE(r.empty()) << r << "Flatten " << str(s);
    }
    ParamDict pd;
    pd.set(6, std::string("0w,*(0h,0c)"));
    Mat in = random({16, 3, 5});
    std::string r = drivers_match("Reshape", pd, {in});
    EXPECT_TRUE(r.empty()) << r;
    ParamDict p2;
    p2.set(6, std::string("1w,-1"));
    r = drivers_match("Reshape", p2, {in, random({8, 6})});
    EXPECT_TRUE(r.empty()) << r;
}

// Rows kept whole: an unpacked matrix of rows (w >= 16) reshaped to a 3-D/4-D
// blob of the same rows, and back (convnext's channels-last MLP, token
// blobs), stays unpacked where the packing axis would take 8 or 16 (the
// matrix products on both sides read unpacked rows), with no copy where the
// planes need no padding; the values against the reference on every
// elempack, including the planes that do need padding (w = 17).
TEST(Reshape, rows_stay_unpacked)
{
    kite::test::reseed(1804);
    const int X = -233;
    struct Case
    {
        Shape in;
        int w, h, d, c;
        bool view; // no copy expected (an unpacked input, planes unpadded on both sides)
    };
    const std::vector<Case> cases = {
        {{48, 16}, 16, 3, X, 16, true},  {{48, 16}, 16, 2, 3, 8, true}, {{48, 17}, 17, 3, X, 16, false},
        {{16, 3, 16}, 16, 48, X, X, true}, {{8, 2, 3, 32}, 32, 48, X, X, true}, {{16, 3, 17}, 17, 48, X, X, false},
    };
    int count = 0;
    const kite::LayerRegistryEntry* table = kite::layer_registry(&count);
    for (const Case& c : cases)
    {
        const ParamDict pd = whdc(c.w, c.h, c.d, c.c);
        Mat in = random(c.in);
        const std::string r = drivers_match("Reshape", pd, {in});
        EXPECT_TRUE(r.empty()) << r << str(c.in) << " -> w " << c.w << " h " << c.h << " d " << c.d << " c " << c.c;
        for (int e = 0; e < count; e++)
        {
            if (std::string(table[e].type) != "Reshape" || table[e].backend != kite::BACKEND_CPU || table[e].isa == kite::CPU_ISA_NONE
                || !kite::cpu_support_isa(table[e].isa))
                continue;
            kite::Option opt;
            opt.num_threads = 1;
            std::string why;
            kite::Layer* l = kite::test::make_layer("Reshape", kite::BACKEND_CPU, table[e].isa, pd, {}, opt, &why);
            ASSERT_TRUE(l != nullptr) << why;
            std::vector<Mat> out(1);
            const int ret = kite::test::run_layer_forward(l, {in}, out, opt);
            const std::string where = std::string("[") + kite::cpu_isa_name(table[e].isa) + "] " + str(c.in) + " -> w "
                                      + std::to_string(c.w) + " seed " + std::to_string(kite::test::seed()) + ": ";
            EXPECT_EQ(ret, 0) << where;
            EXPECT_EQ(out[0].elempack, 1) << where << "the rows were packed";
            EXPECT_EQ(out[0].data == in.data, c.view) << where << (c.view ? "copied" : "a view of padded planes");
            for (size_t k = 0; k < (size_t)48 * c.w && ret == 0; k++)
                if (flat(out[0], k) != flat(in, k))
                {
                    ADD_FAILURE() << where << "scalar " << k << " moved";
                    break;
                }
            delete l;
        }
    }
}
