#include "shape_testutil.h"

using namespace shapetest;
using kite::test::FloatArrayMat;

// source index along one axis for output position i, -1 = constant
static int src_index(int i, int before, int size, int type)
{
    int s = i - before;
    if (s >= 0 && s < size)
        return s;
    if (type == 0)
        return -1;
    if (type == 1)
        return s < 0 ? 0 : size - 1;
    return s < 0 ? -s : 2 * size - 2 - s; // reflect (edge not repeated)
}

TEST(Padding, every_type_every_dims)
{
    for (const Shape& s : all_dims_shapes())
    {
        const int n = (int)s.size();
        Mat in = seq(s);
        for (int type = 0; type < 3; type++)
        {
            // pads per logical axis: dims1 w; dims2 h w; dims3 c h w; dims4 d h w (c kept)
            const int top = 1, bottom = 2, left = 2, right = 1, front = 1, behind = 2;
            ParamDict pd = params({{0, top}, {1, bottom}, {2, left}, {3, right}, {4, type}, {7, front}, {8, behind}});
            pd.set(5, 0.25f);
            Shape before(n, 0), after(n, 0);
            before[n - 1] = left;
            after[n - 1] = right;
            if (n >= 2)
            {
                before[n - 2] = top;
                after[n - 2] = bottom;
            }
            if (n >= 3)
            {
                before[n - 3] = front;
                after[n - 3] = behind;
            }
            Shape outs(n);
            for (int i = 0; i < n; i++)
                outs[i] = s[i] + before[i] + after[i];
            bool reflect_ok = true;
            for (int i = 0; i < n; i++)
                reflect_ok = reflect_ok && before[i] < s[i] && after[i] < s[i];
            if (type == 2 && !reflect_ok)
            {
                EXPECT_TRUE(fails("Padding", pd, {in})) << str(s);
                continue;
            }
            EXPECT_TRUE(matches(run("Padding", pd, {in})[0], outs, [&](const Shape& idx) {
                Shape k(n);
                for (int i = 0; i < n; i++)
                {
                    k[i] = src_index(idx[i], before[i], s[i], type);
                    if (k[i] < 0)
                        return 0.25f;
                }
                return lget(in, k);
            })) << str(s) << " type " << type;
        }
    }
}

TEST(Padding, reflect_channels_and_per_channel_values)
{
    Mat in = seq({4, 3, 5});
    ParamDict pd = params({{7, 3}, {8, 2}, {4, 2}});
    EXPECT_TRUE(matches(run("Padding", pd, {in})[0], {9, 3, 5}, [&](const Shape& i) { return lget(in, {src_index(i[0], 3, 4, 2), i[1], i[2]}); }));
    // per-channel constants indexed by output channel, from the model
    ParamDict pc = params({{0, 1}, {2, 2}, {7, 1}, {4, 0}, {6, 5}});
    Mat vals = FloatArrayMat({-1.f, -2.f, -3.f, -4.f, -5.f});
    EXPECT_TRUE(matches(run("Padding", pc, {in}, 1, {vals})[0], {5, 4, 7}, [&](const Shape& i) {
        if (i[0] < 1 || i[1] < 1 || i[2] < 2)
            return -1.f - i[0];
        return lget(in, {i[0] - 1, i[1] - 1, i[2] - 2});
    }));
    EXPECT_TRUE(fails("Padding", params({{2, 5}, {4, 2}}), {in}));   // reflect wider than the blob
    EXPECT_TRUE(fails("Padding", params({{2, -1}}), {in}));          // negative pad
    EXPECT_TRUE(fails("Padding", params({{4, 3}}), {in}));           // unknown type
    EXPECT_TRUE(fails("Padding", params({{7, 2}, {6, 3}}), {in}, 1, {FloatArrayMat({1.f, 2.f, 3.f})})); // too few values
}

// The CPU drivers on random data: every dims, packable and odd channel
// counts, every type, pads on every axis (the packing axis too, by multiples
// of the pack and not), per-channel values; no run may fall back to the
// reference.
TEST(Padding, drivers_every_axis_type_and_pack)
{
    kite::test::reseed(1801);
    const std::vector<Shape> shapes = {{13}, {16}, {16, 5}, {16, 6, 5}, {12, 3, 7}, {5, 4, 3}, {8, 3, 4, 5}};
    // top, bottom, left, right, front, behind
    const std::vector<std::vector<int> > pads = {{1, 2, 2, 1, 0, 0}, {0, 0, 0, 0, 0, 4}, {0, 0, 0, 0, 2, 3}, {1, 0, 0, 2, 1, 1},
                                                 {0, 2, 0, 2, 0, 0}, {0, 0, 0, 0, 8, 0}, {0, 0, 0, 0, 0, 0}};
    for (const Shape& s : shapes)
    {
        Mat in = random(s);
        for (const std::vector<int>& p : pads)
            for (int type = 0; type < 3; type++)
                for (int per_channel = 0; per_channel < (type == 0 ? 2 : 1); per_channel++)
                {
                    ParamDict pd = params({{0, p[0]}, {1, p[1]}, {2, p[2]}, {3, p[3]}, {4, type}, {7, p[4]}, {8, p[5]}});
                    pd.set(5, -0.75f);
                    std::vector<Mat> weights;
                    if (per_channel)
                    {
                        const int n = (int)s.size();
                        const int channels = n == 3 ? s[0] + p[4] + p[5] : n == 4 ? s[0] : 1;
                        pd.set(6, channels);
                        weights.push_back(random({channels}, 2.f, 3.f));
                    }
                    if (fails("Padding", pd, {in}, 1, weights))
                    {
                        EXPECT_EQ(type, 2) << str(s); // only reflect wider than an axis
                        continue;
                    }
                    const std::string r = drivers_match("Padding", pd, {in}, weights);
                    EXPECT_TRUE(r.empty()) << r << str(s) << " pads " << p[0] << "," << p[1] << "," << p[2] << "," << p[3] << "," << p[4] << "," << p[5]
                        << " type " << type << " per_channel " << per_channel;
                }
    }
}
