#include "shape_testutil.h"

using namespace shapetest;
using kite::test::IntArrayMat;

// TensorFlow semantics written out on an NHWC array (batch 1), independent of
// the layer: SpaceToBatchND then folding the output batch into channels
// (batch outermost), and BatchToSpaceND as TensorFlow defines it.
struct Nhwc
{
    int n, h, w, c;
    std::vector<float> v;
    float& at(int b, int y, int x, int q) { return v[((size_t)(b * h + y) * w + x) * c + q]; }
};

static Nhwc to_nhwc(const Mat& m, int batches)
{
    // channels of m = batches * c, batch outermost
    Nhwc t{batches, m.h, m.w, m.c / batches, {}};
    t.v.resize((size_t)t.n * t.h * t.w * t.c);
    for (int b = 0; b < t.n; b++)
        for (int y = 0; y < t.h; y++)
            for (int x = 0; x < t.w; x++)
                for (int q = 0; q < t.c; q++)
                    t.at(b, y, x, q) = lget(m, {b * t.c + q, y, x});
    return t;
}

static Nhwc tf_space_to_batch(Nhwc in, int bh, int bw, const int* pad)
{
    const int hp = in.h + pad[0] + pad[1], wp = in.w + pad[2] + pad[3];
    Nhwc out{in.n * bh * bw, hp / bh, wp / bw, in.c, {}};
    out.v.assign((size_t)out.n * out.h * out.w * out.c, 0.f);
    // TF: output batch index = (sy * bw + sx) * N + n
    for (int sy = 0; sy < bh; sy++)
        for (int sx = 0; sx < bw; sx++)
            for (int b = 0; b < in.n; b++)
                for (int i = 0; i < out.h; i++)
                    for (int j = 0; j < out.w; j++)
                        for (int q = 0; q < in.c; q++)
                        {
                            int y = i * bh + sy - pad[0], x = j * bw + sx - pad[2];
                            float v = (y >= 0 && y < in.h && x >= 0 && x < in.w) ? in.at(b, y, x, q) : 0.f;
                            out.at((sy * bw + sx) * in.n + b, i, j, q) = v;
                        }
    return out;
}

static Nhwc tf_batch_to_space(Nhwc in, int bh, int bw, const int* crop)
{
    const int n = in.n / (bh * bw);
    Nhwc out{n, in.h * bh - crop[0] - crop[1], in.w * bw - crop[2] - crop[3], in.c, {}};
    out.v.assign((size_t)out.n * out.h * out.w * out.c, 0.f);
    for (int b = 0; b < in.n; b++)
    {
        const int blk = b / n, nb = b % n, sy = blk / bw, sx = blk % bw;
        for (int i = 0; i < in.h; i++)
            for (int j = 0; j < in.w; j++)
            {
                int y = i * bh + sy - crop[0], x = j * bw + sx - crop[2];
                if (y < 0 || y >= out.h || x < 0 || x >= out.w)
                    continue;
                for (int q = 0; q < in.c; q++)
                    out.at(nb, y, x, q) = in.at(b, i, j, q);
            }
    }
    return out;
}

static ParamDict block_params(int bh, int bw, const int* p)
{
    ParamDict pd;
    pd.set(0, IntArrayMat({bh, bw}));
    pd.set(1, IntArrayMat({p[0], p[1], p[2], p[3]}));
    return pd;
}

TEST(SpaceToBatchND, matches_tensorflow_semantics_and_inverts)
{
    struct Case
    {
        int bh, bw;
        int pad[4];
        Shape in; // c, h, w
    };
    const std::vector<Case> cases = {
        {2, 2, {0, 0, 0, 0}, {3, 4, 6}},
        {2, 3, {1, 1, 0, 3}, {2, 4, 6}},
        {3, 2, {2, 0, 1, 0}, {1, 7, 5}},
        {1, 2, {0, 0, 1, 2}, {2, 3, 3}},
    };
    for (const Case& c : cases)
    {
        Mat in = seq(c.in);
        Mat out = run("SpaceToBatchND", block_params(c.bh, c.bw, c.pad), {in})[0];
        Nhwc want = tf_space_to_batch(to_nhwc(in, 1), c.bh, c.bw, c.pad);
        const Shape outs = {want.n * want.c, want.h, want.w};
        EXPECT_TRUE(matches(out, outs, [&](const Shape& i) { return want.at(i[0] / want.c, i[1], i[2], i[0] % want.c); })) << str(c.in);
        // BatchToSpaceND with the paddings as crops gives the input back
        Mat back = run("BatchToSpaceND", block_params(c.bh, c.bw, c.pad), {out})[0];
        EXPECT_TRUE(matches(back, c.in, [&](const Shape& i) { return lget(in, i); })) << str(c.in);
    }
    const int none[4] = {0, 0, 0, 0};
    EXPECT_TRUE(fails("SpaceToBatchND", block_params(2, 2, none), {seq({2, 3, 4})})); // h 3 not divisible
    EXPECT_TRUE(fails("SpaceToBatchND", block_params(2, 2, none), {seq({4, 4})}));
    ParamDict bad;
    bad.set(0, IntArrayMat({2}));
    EXPECT_TRUE(fails("SpaceToBatchND", bad, {seq({2, 4, 4})}));
}

TEST(BatchToSpaceND, matches_tensorflow_semantics)
{
    struct Case
    {
        int bh, bw;
        int crop[4];
        Shape in; // (bh*bw*c), h, w
    };
    const std::vector<Case> cases = {
        {2, 2, {0, 0, 0, 0}, {8, 3, 4}},
        {2, 3, {1, 0, 2, 1}, {12, 3, 2}},
        {3, 1, {0, 2, 0, 0}, {3, 2, 5}},
    };
    for (const Case& c : cases)
    {
        Mat in = seq(c.in);
        Mat out = run("BatchToSpaceND", block_params(c.bh, c.bw, c.crop), {in})[0];
        Nhwc want = tf_batch_to_space(to_nhwc(in, c.bh * c.bw), c.bh, c.bw, c.crop);
        EXPECT_TRUE(matches(out, {want.c, want.h, want.w}, [&](const Shape& i) { return want.at(0, i[1], i[2], i[0]); })) << str(c.in);
    }
    const int big[4] = {3, 3, 0, 0};
    EXPECT_TRUE(fails("BatchToSpaceND", block_params(2, 2, big), {seq({4, 3, 3})}));   // crops everything
    const int none[4] = {0, 0, 0, 0};
    EXPECT_TRUE(fails("BatchToSpaceND", block_params(2, 2, none), {seq({6, 3, 3})}));  // 6 channels, 4 blocks
}
