#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

static Mat shape_of(int dims)
{
    return dims == 1 ? RandomMat(11, -3.f, 3.f) : dims == 2 ? RandomMat(7, 5, -3.f, 3.f) : dims == 3 ? RandomMat(6, 5, 4, -3.f, 3.f) : RandomMat(5, 4, 3, 6, -3.f, 3.f);
}

TEST(Softmax, sums_to_one_along_every_axis)
{
    reseed(61);
    for (int dims = 1; dims <= 4; dims++)
        for (int axis = -dims; axis < dims; axis++)
        {
            Mat in = shape_of(dims);
            ParamDict pd;
            pd.set(0, axis);
            pd.set(1, 1);
            std::vector<Mat> out = run_all("Softmax", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            const Mat& o = out[0];
            // extents outermost first
            int ext[4], n = 0;
            if (dims >= 3) ext[n++] = o.c;
            if (dims == 4) ext[n++] = o.d;
            if (dims >= 2) ext[n++] = o.h;
            ext[n++] = o.w;
            const int pa = axis < 0 ? axis + dims : axis;
            // check the line through index 1 of every other axis (0 if size 1)
            int idx[4] = {0, 0, 0, 0};
            for (int i = 0; i < n; i++)
                idx[i] = ext[i] > 1 ? 1 : 0;
            double sum = 0;
            float maxv = -1e30f, maxy = 0.f;
            for (int k = 0; k < ext[pa]; k++)
            {
                idx[pa] = k;
                int x = idx[n - 1], y = dims >= 2 ? idx[n - 2] : 0, z = dims == 4 ? idx[1] : 0, c = dims >= 3 ? idx[0] : 0;
                float v = at(o, x, y, z, c);
                sum += v;
                if (at(in, x, y, z, c) > maxv)
                    maxv = at(in, x, y, z, c), maxy = v;
                ASSERT_GT(v, 0.f);
            }
            EXPECT_NEAR(sum, 1.0, 1e-5) << "dims " << dims << " axis " << axis;
            // the largest input gets the largest probability: ratio check
            idx[pa] = 0;
            int x = idx[n - 1], y = dims >= 2 ? idx[n - 2] : 0, z = dims == 4 ? idx[1] : 0, c = dims >= 3 ? idx[0] : 0;
            EXPECT_TRUE(near(at(o, x, y, z, c) / maxy, std::exp(at(in, x, y, z, c) - maxv), 1e-4f));
        }
}

// every implementation against the reference on packable sizes (the x86 rows
// take elempack 4/8/16 along w, h or c by dims) and odd ones, every axis;
// long lines for the vector bodies and tails
TEST(Softmax, implementations_every_axis_packed)
{
    reseed(62);
    const Mat ins[] = {RandomMat(48, -3.f, 3.f), RandomMat(37, -3.f, 3.f), RandomMat(21, 16, -3.f, 3.f), RandomMat(19, 12, -3.f, 3.f),
                       RandomMat(7, 5, 32, -3.f, 3.f), RandomMat(3, 2, 24, -3.f, 3.f), RandomMat(5, 3, 2, 16, -3.f, 3.f),
                       RandomMat(1000, -3.f, 3.f)};
    for (const Mat& in : ins)
        for (int axis = -in.dims; axis < in.dims; axis++)
        {
            ParamDict pd;
            pd.set(0, axis);
            pd.set(1, 1);
            SCOPED_TRACE("dims " + std::to_string(in.dims) + " c/h/w " + std::to_string(in.c) + "/" + std::to_string(in.h) + "/" +
                         std::to_string(in.w) + " axis " + std::to_string(axis));
            run_all("Softmax", pd, {}, {in}, 1, 1e-5f);
        }
}

TEST(Softmax, errors)
{
    ParamDict old;
    old.set(0, 1); // without fixbug0
    EXPECT_TRUE(reference_fails("Softmax", old, {}, {RandomMat(4, 4)}));
    ParamDict pd;
    pd.set(0, 3);
    pd.set(1, 1);
    EXPECT_TRUE(reference_fails("Softmax", pd, {}, {RandomMat(4, 4)}));
}
