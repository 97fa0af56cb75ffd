#ifndef KITE_TESTS_ELEMENTWISE_CHECK_H
#define KITE_TESTS_ELEMENTWISE_CHECK_H

// Helpers for the element-wise layer tests: run a layer through the harness,
// then check every output element against an independent computation.

#include "cpu.h"
#include "testutil.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace kite {
namespace test {

// element coordinates of a blob of any dims (unused axes 0)
struct Coord
{
    int x, y, z, q;
};

// pointer to element (x, y, z, q) of an fp32 pack-1 Mat
static inline const float* elem_ptr(const Mat& m, const Coord& c)
{
    const float* base = (const float*)m.data + (m.dims >= 3 ? m.cstep * c.q : 0);
    return base + ((size_t)c.z * m.h + c.y) * m.w + c.x;
}

static inline void for_each_coord(const Mat& m, const std::function<void(const Coord&)>& f)
{
    const int channels = m.dims >= 3 ? m.c : 1;
    for (int q = 0; q < channels; q++)
        for (int z = 0; z < m.d; z++)
            for (int y = 0; y < m.h; y++)
                for (int x = 0; x < m.w; x++)
                    f(Coord{x, y, z, q});
}

// |got - want| <= tol * max(1, |want|), NaN matching NaN, inf matching inf
static inline bool close_enough(double got, double want, double tol)
{
    if (std::isnan(want))
        return std::isnan(got);
    if (std::isinf(want))
        return got == want;
    return std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want));
}

static inline std::string fmt_mismatch(const char* type, const Coord& c, float x, double got, double want)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s: at (x=%d y=%d z=%d q=%d) input %.8g: got %.8g, want %.8g (seed %llu)", type, c.x, c.y, c.z,
             c.q, x, got, want, (unsigned long long)seed());
    return buf;
}

// One-input layer: runs the harness (reference, 2 threads, other rows), then
// checks y = want(x, coord) on every element, and that the out-of-place
// forward leaves its input untouched and agrees with the in-place result.
static inline std::string check_unary_layer(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                                            const Mat& in, const std::function<double(float, const Coord&)>& want,
                                            double tol = 1e-5, const TestLayerFlags& flags = TestLayerFlags())
{
    std::vector<Mat> out;
    std::string report = test_layer(type, pd, weights, {in}, flags, &out);
    if (!report.empty())
        return report;
    const Mat& y = out[0];
    if (y.dims != in.dims || y.w != in.w || y.h != in.h || y.d != in.d || y.c != in.c)
        return std::string(type) + ": output shape " + shape_string(y) + " != input shape " + shape_string(in);
    std::string err;
    for_each_coord(in, [&](const Coord& c) {
        if (!err.empty())
            return;
        const float x = *elem_ptr(in, c);
        const double w = want(x, c);
        const double g = *elem_ptr(y, c);
        if (!close_enough(g, w, tol))
            err = fmt_mismatch(type, c, x, g, w);
    });
    if (!err.empty())
        return err;

    // out-of-place forward: input unchanged, same answer
    Option opt;
    std::string why;
    Layer* l = make_layer(type, BACKEND_CPU, CPU_ISA_NONE, pd, weights, opt, &why);
    if (!l)
        return std::string(type) + ": make_layer: " + why;
    Mat copy = in.clone();
    Mat top;
    int ret = l->forward(copy, top, opt);
    l->destroy_pipeline(opt);
    delete l;
    if (ret != 0)
        return std::string(type) + ": out-of-place forward returned " + std::to_string(ret);
    std::string c1 = compare_mat(copy, in, 0.f);
    if (!c1.empty())
        return std::string(type) + ": out-of-place forward changed its input: " + c1;
    std::string c2 = compare_mat(top, y, 0.f);
    if (!c2.empty())
        return std::string(type) + ": out-of-place result differs from in-place: " + c2;
    return "";
}

// one random input per rank, odd sizes
static inline std::vector<Mat> odd_shapes(float lo, float hi)
{
    return {RandomMat(23, lo, hi), RandomMat(9, 5, lo, hi), RandomMat(7, 5, 3, lo, hi), RandomMat(5, 4, 3, 2, lo, hi),
            RandomMat(1, lo, hi), RandomMat(17, 3, 16, lo, hi)};
}

// Runs the reference only and returns its forward return code (for error paths).
static inline int reference_forward_ret(const char* type, const ParamDict& pd, const std::vector<Mat>& weights,
                                        const std::vector<Mat>& inputs, int* load_ret = nullptr)
{
    Option opt;
    std::string why;
    Layer* l = create_layer(type);
    if (!l)
        return -1000;
    int r = l->load_param(pd);
    if (load_ret)
        *load_ret = r;
    if (r != 0)
    {
        delete l;
        return r;
    }
    ModelBinFromMatArray mb(weights.data(), (int)weights.size());
    r = l->load_model(mb);
    if (r != 0)
    {
        delete l;
        return r;
    }
    std::vector<Mat> outs;
    std::vector<Mat> ins;
    for (const Mat& m : inputs)
        ins.push_back(m.clone());
    r = run_layer_forward(l, ins, outs, opt);
    delete l;
    return r;
}

} // namespace test
} // namespace kite

#endif // KITE_TESTS_ELEMENTWISE_CHECK_H
