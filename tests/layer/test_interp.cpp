#include "shape_testutil.h"

#include <cmath>

using namespace shapetest;
using kite::test::RandomMat;

// Independent 1-D sampling in double precision: weights of the source
// pixels for output index i. step: source pixels per output pixel.
static std::vector<std::pair<int, double> > taps(int type, int in, int out, double step, bool align, int i)
{
    std::vector<std::pair<int, double> > r;
    if (type == 1)
    {
        int s = (int)std::floor(i * step);
        r.push_back({std::min(s, in - 1), 1.0});
        return r;
    }
    double x = align ? (out > 1 ? i * (double)(in - 1) / (out - 1) : 0.0) : (i + 0.5) * step - 0.5;
    if (type == 2)
    {
        x = std::min(std::max(x, 0.0), (double)(in - 1)); // clamp the coordinate
        int x0 = (int)std::floor(x);
        int x1 = std::min(x0 + 1, in - 1);
        r.push_back({x0, 1.0 - (x - x0)});
        r.push_back({x1, x - x0});
        return r;
    }
    // Keys cubic, A = -0.75, taps clamped to the border
    const double A = -0.75;
    auto kernel = [&](double t) {
        t = std::fabs(t);
        if (t <= 1)
            return (A + 2) * t * t * t - (A + 3) * t * t + 1;
        if (t < 2)
            return A * t * t * t - 5 * A * t * t + 8 * A * t - 4 * A;
        return 0.0;
    };
    int x0 = (int)std::floor(x);
    for (int k = -1; k <= 2; k++)
        r.push_back({std::min(std::max(x0 + k, 0), in - 1), kernel(x - (x0 + k))});
    return r;
}

static float sample(const Mat& in, int q, int type, int outh, int outw, double hs, double ws, bool align, int y, int x, bool rows_only)
{
    const int h = in.h, w = in.w;
    double v = 0;
    auto tx = taps(type, w, outw, ws, align, x);
    if (rows_only)
    {
        for (auto& a : tx)
            v += a.second * lget(in, {y, a.first});
        return (float)v;
    }
    auto ty = taps(type, h, outh, hs, align, y);
    for (auto& b : ty)
        for (auto& a : tx)
            v += b.second * a.second * lget(in, {q, b.first, a.first});
    return (float)v;
}

TEST(Interp, types_sizes_scales)
{
    kite::test::reseed(11);
    Mat in = RandomMat(9, 7, 3);
    for (int type = 1; type <= 3; type++)
    {
        // sizes from scales: step = 1/scale
        ParamDict ps = params({{0, type}});
        ps.set(1, 1.7f);
        ps.set(2, 2.6f);
        const int oh = (int)(7 * 1.7f), ow = (int)(9 * 2.6f);
        EXPECT_TRUE(matches(run("Interp", ps, {in})[0], {3, oh, ow}, [&](const Shape& i) {
            return sample(in, i[0], type, oh, ow, 1.0 / 1.7f, 1.0 / 2.6f, false, i[1], i[2], false);
        }, 1e-4f)) << "type " << type << " scales";
        for (int align = 0; align < (type == 1 ? 1 : 2); align++)
        {
            for (Shape os : {Shape{11, 13}, Shape{4, 5}, Shape{3, 17}})
            {
                ParamDict pd = params({{0, type}, {3, os[0]}, {4, os[1]}, {6, align}});
                EXPECT_TRUE(matches(run("Interp", pd, {in})[0], {3, os[0], os[1]}, [&](const Shape& i) {
                    return sample(in, i[0], type, os[0], os[1], 7.0 / os[0], 9.0 / os[1], align != 0, i[1], i[2], false);
                }, 1e-4f)) << "type " << type << " size " << str(os) << " align " << align;
            }
        }
        // dims 2: rows resized along w only
        Mat r2 = RandomMat(9, 4);
        ParamDict p2 = params({{0, type}, {3, 4}, {4, 13}});
        EXPECT_TRUE(matches(run("Interp", p2, {r2})[0], {4, 13}, [&](const Shape& i) {
            return sample(r2, 0, type, 4, 13, 1.0, 9.0 / 13, false, i[0], i[1], true);
        }, 1e-4f)) << "type " << type << " dims 2";
        // dims 1: values become constant channels
        Mat v = seq({6});
        EXPECT_TRUE(matches(run("Interp", params({{0, type}, {3, 3}, {4, 5}}), {v})[0], {6, 3, 5}, [&](const Shape& i) { return lget(v, {i[0]}); }));
        // dynamic target size from a second input
        ParamDict pdyn = params({{0, type}, {5, 1}});
        EXPECT_TRUE(matches(run("Interp", pdyn, {in, Mat(13, 10, 1)})[0], {3, 10, 13}, [&](const Shape& i) {
            return sample(in, i[0], type, 10, 13, 7.0 / 10, 9.0 / 13, false, i[1], i[2], false);
        }, 1e-4f)) << "type " << type << " dynamic";
    }
}

TEST(Interp, small_inputs_and_errors)
{
    // one pixel and two pixels stay in bounds
    Mat one = seq({2, 1, 1});
    for (int type = 1; type <= 3; type++)
    {
        EXPECT_TRUE(matches(run("Interp", params({{0, type}, {3, 3}, {4, 4}}), {one})[0], {2, 3, 4}, [&](const Shape& i) { return lget(one, {i[0], 0, 0}); }, 1e-5f));
        Mat two = seq({1, 2, 2});
        // every output lies within the input range
        Mat o = run("Interp", params({{0, type}, {3, 5}, {4, 5}}), {two})[0];
        ASSERT_FALSE(o.empty());
    }
    EXPECT_TRUE(fails("Interp", params({{0, 4}}), {seq({2, 3, 3})}));
    EXPECT_TRUE(fails("Interp", params({{0, 2}, {3, 2}, {4, 2}}), {seq({2, 2, 3, 3})})); // dims 4
    ParamDict tiny = params({{0, 1}});
    tiny.set(1, 0.1f);
    tiny.set(2, 0.1f);
    EXPECT_TRUE(fails("Interp", tiny, {seq({2, 3, 3})})); // empty output
    EXPECT_TRUE(fails("Interp", params({{0, 2}, {5, 1}}), {seq({2, 3, 3})}, 1)); // missing reference
}

// packed layouts: the x86 rows take elempack 4/8/16 (fp32 and fp16 storage)
// of 3-D and 1-D blobs; the harness compares each with the reference
TEST(Interp, packed_channel_counts)
{
    kite::test::reseed(12);
    for (int c : {8, 12, 32})
    {
        Mat in = RandomMat(6, 5, c);
        for (int type = 1; type <= 3; type++)
        {
            ParamDict ps = params({{0, type}});
            ps.set(1, 2.f);
            ps.set(2, 2.f);
            run("Interp", ps, {in});
            ParamDict pd = params({{0, type}, {3, 7}, {4, 4}, {6, type == 1 ? 0 : 1}});
            run("Interp", pd, {in});
            run("Interp", params({{0, type}, {5, 1}}), {in, Mat(9, 3, 1)});
        }
        Mat v = RandomMat(c);
        run("Interp", params({{0, 2}, {3, 3}, {4, 2}}), {v});
    }
    // large upscales (each resized source row serves several output rows,
    // the rows blended in whole vectors and a tail): lraspp's final resize of
    // 21 planar channels, odd sizes, every type, both alignments
    for (int c : {21, 16})
    {
        Mat in = RandomMat(5, 6, c);
        for (int type = 1; type <= 3; type++)
            for (int align = 0; align < 2; align++)
                run("Interp", params({{0, type}, {3, 47}, {4, 41}, {6, type == 1 ? 0 : align}}), {in});
    }
}
