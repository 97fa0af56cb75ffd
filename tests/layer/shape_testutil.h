#ifndef KITE_TESTS_SHAPE_TESTUTIL_H
#define KITE_TESTS_SHAPE_TESTUTIL_H

// Helpers for the shape / data-movement layer tests. Shapes here are logical
// and outermost first, as ncnn numbers axes: {w}, {h, w}, {c, h, w},
// {c, d, h, w}. Blobs are filled with distinct values so that any misplaced
// element shows.

#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace shapetest {

using kite::Mat;
using kite::ParamDict;
typedef std::vector<int> Shape;

inline Shape lshape(const Mat& m)
{
    if (m.dims == 1)
        return {m.w};
    if (m.dims == 2)
        return {m.h, m.w};
    if (m.dims == 3)
        return {m.c, m.h, m.w};
    if (m.dims == 4)
        return {m.c, m.d, m.h, m.w};
    return {};
}

// pointer to the fp32 element at a logical index
inline float* lptr(const Mat& m, const Shape& idx)
{
    size_t q = 0, z = 0, y = 0, x = 0;
    if (m.dims == 1)
        x = idx[0];
    if (m.dims == 2)
    {
        y = idx[0];
        x = idx[1];
    }
    if (m.dims == 3)
    {
        q = idx[0];
        y = idx[1];
        x = idx[2];
    }
    if (m.dims == 4)
    {
        q = idx[0];
        z = idx[1];
        y = idx[2];
        x = idx[3];
    }
    return (float*)m.data + q * m.cstep + (z * m.h + y) * m.w + x;
}

inline float lget(const Mat& m, const Shape& idx)
{
    return *lptr(m, idx);
}

inline Mat make(const Shape& s)
{
    if (s.size() == 1)
        return Mat(s[0]);
    if (s.size() == 2)
        return Mat(s[1], s[0]);
    if (s.size() == 3)
        return Mat(s[2], s[1], s[0]);
    return Mat(s[3], s[2], s[1], s[0]);
}

inline void for_each_index(const Shape& s, const std::function<void(const Shape&)>& f)
{
    size_t total = 1;
    for (int v : s)
        total *= (size_t)v;
    Shape idx(s.size(), 0);
    for (size_t t = 0; t < total; t++)
    {
        size_t r = t;
        for (int i = (int)s.size() - 1; i >= 0; i--)
        {
            idx[i] = (int)(r % s[i]);
            r /= s[i];
        }
        f(idx);
    }
}

// distinct values: 1 + the row-major logical position (optionally offset)
inline Mat seq(const Shape& s, float offset = 0.f)
{
    Mat m = make(s);
    float v = 1.f + offset;
    for_each_index(s, [&](const Shape& idx) { *lptr(m, idx) = v; v += 1.f; });
    return m;
}

inline std::string str(const Shape& s)
{
    std::string r = "{";
    for (size_t i = 0; i < s.size(); i++)
        r += (i ? "," : "") + std::to_string(s[i]);
    return r + "}";
}

// The reference through the shared harness (two thread counts and every other
// implementation); outputs are returned, a harness failure fails the test.
inline std::vector<Mat> run(const char* type, const ParamDict& pd, const std::vector<Mat>& inputs, int tops = 1,
                            const std::vector<Mat>& weights = {})
{
    kite::test::TestLayerFlags flags;
    flags.top_count = tops;
    std::vector<Mat> out;
    std::string report = kite::test::test_layer(type, pd, weights, inputs, flags, &out);
    EXPECT_TRUE(report.empty()) << report;
    return out;
}

// true if the reference rejects the params or the inputs (load or forward)
inline bool fails(const char* type, const ParamDict& pd, const std::vector<Mat>& inputs, int tops = 1,
                  const std::vector<Mat>& weights = {})
{
    std::string why;
    std::vector<Mat> out = kite::test::run_reference(type, pd, weights, inputs, &why, tops);
    return out.empty();
}

// shape and every value against an independent formula of the logical index
inline ::testing::AssertionResult matches(const Mat& out, const Shape& shape, const std::function<float(const Shape&)>& want,
                                          float tol = 0.f)
{
    if (out.empty())
        return ::testing::AssertionFailure() << "empty output";
    Mat o = kite::test::to_fp32_pack1(out);
    if (lshape(o) != shape)
        return ::testing::AssertionFailure() << "shape " << str(lshape(o)) << " != expected " << str(shape);
    std::string bad;
    for_each_index(shape, [&](const Shape& idx) {
        if (!bad.empty())
            return;
        float got = lget(o, idx);
        float w = want(idx);
        if (!(std::fabs(got - w) <= tol * std::max(1.f, std::fabs(w))))
            bad = "at " + str(idx) + " got " + std::to_string(got) + " want " + std::to_string(w);
    });
    if (!bad.empty())
        return ::testing::AssertionFailure() << bad;
    return ::testing::AssertionSuccess();
}

inline ParamDict params(const std::vector<std::pair<int, int> >& ints)
{
    ParamDict pd;
    for (auto& kv : ints)
        pd.set(kv.first, kv.second);
    return pd;
}

// the index with one axis replaced
inline Shape with(Shape idx, int axis, int v)
{
    idx[axis] = v;
    return idx;
}

// random values in [lo, hi) of a logical shape (the harness RNG: reseed first)
inline Mat random(const Shape& s, float lo = -1.f, float hi = 1.f)
{
    if (s.size() == 1)
        return kite::test::RandomMat(s[0], lo, hi);
    if (s.size() == 2)
        return kite::test::RandomMat(s[1], s[0], lo, hi);
    if (s.size() == 3)
        return kite::test::RandomMat(s[2], s[1], s[0], lo, hi);
    return kite::test::RandomMat(s[3], s[2], s[1], s[0], lo, hi);
}

// every CPU driver against the reference (every elempack, fp16 storage where
// taken, 1 and 2 threads), also failing when a driver hands the run to its
// reference (note_cpu_layer_on_reference): the path must be the driver's own.
// "" or the harness report (with the seed).
inline std::string drivers_match(const char* type, const ParamDict& pd, const std::vector<Mat>& inputs,
                                 const std::vector<Mat>& weights = {}, float epsilon = 1e-3f)
{
    kite::test::TestLayerFlags flags;
    flags.forbid_reference = true;
    flags.epsilon = epsilon;
    return kite::test::test_layer(type, pd, weights, inputs, flags);
}

// odd-sized shapes of every dims
inline std::vector<Shape> all_dims_shapes()
{
    return {{7}, {3, 5}, {4, 3, 5}, {3, 2, 5, 3}};
}

} // namespace shapetest

#endif // KITE_TESTS_SHAPE_TESTUTIL_H
