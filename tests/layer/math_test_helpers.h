#ifndef KITE_TEST_MATH_TEST_HELPERS_H
#define KITE_TEST_MATH_TEST_HELPERS_H

// Small helpers shared by the tests of the pooling / gemm / normalisation /
// recurrent layers: run a layer through the harness and read values back.

#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace kite {
namespace test {

// run the reference and every other implementation; return the reference
// outputs as fp32 elempack 1 (empty on failure, with a gtest failure)
inline std::vector<Mat> run_all(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                                const std::vector<Mat>& inputs, int top_count = 1, float eps = 1e-3f)
{
    TestLayerFlags flags;
    flags.top_count = top_count;
    flags.epsilon = eps;
    std::vector<Mat> out;
    std::string report = test_layer(type, pd, weights, inputs, flags, &out);
    EXPECT_TRUE(report.empty()) << report;
    if (!report.empty())
        return std::vector<Mat>();
    for (Mat& m : out)
        m = to_fp32_pack1(m);
    return out;
}

// the reference must refuse these params / inputs
inline bool reference_fails(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                            const std::vector<Mat>& inputs, int top_count = 1)
{
    std::string why;
    std::vector<Mat> out = run_reference(type, pd, weights, inputs, &why, top_count);
    return out.empty();
}

// element (x, y, z, c) of an fp32 elempack-1 blob, whatever its dims
inline float at(const Mat& m, int x, int y = 0, int z = 0, int c = 0)
{
    const float* p = (const float*)m.data;
    if (m.dims >= 3)
        p += m.cstep * c;
    return p[((size_t)z * m.h + y) * m.w + x];
}

inline void set_at(Mat& m, float v, int x, int y = 0, int z = 0, int c = 0)
{
    float* p = (float*)m.data;
    if (m.dims >= 3)
        p += m.cstep * c;
    p[((size_t)z * m.h + y) * m.w + x] = v;
}

inline bool same_shape(const Mat& m, int dims, int w, int h = 1, int d = 1, int c = 1)
{
    return m.dims == dims && m.w == w && (dims < 2 || m.h == h) && (dims < 4 || m.d == d) && (dims < 3 || m.c == c);
}

inline bool near(float a, float b, float tol = 1e-4f)
{
    return std::fabs(a - b) <= tol * std::max(1.f, std::fabs(b));
}

} // namespace test
} // namespace kite

#endif // KITE_TEST_MATH_TEST_HELPERS_H
