#ifndef KITE_LAYER_COMMON_MATH_OPS_H
#define KITE_LAYER_COMMON_MATH_OPS_H

// Scalar math shared by the element-wise reference layers, written to give the
// same fp32 results as ncnn's reference layers (same formulas, same order of
// operations, float libm calls), and a helper that applies a function to every
// element of an fp32 elempack-1 blob of any dims.

#include "layer.h"
#include "log.h"

#include <cmath>
#include <cstddef>
#include <string>

namespace kite {
namespace mathops {

static inline float sigmoid(float x)
{
    return 1.f / (1.f + expf(-x));
}

// x * sigmoid(x), written as ncnn's Swish does it
static inline float swish(float x)
{
    return x / (1.f + expf(-x));
}

// x * tanh(softplus(x))
static inline float mish(float x)
{
    return x * tanhf(logf(expf(x) + 1.f));
}

// exact GELU: x * P(X <= x), X ~ N(0, 1)
static inline float gelu_erf(float x)
{
    return 0.5f * x * erfcf(-0.70710678f * x);
}

// tanh approximation of GELU
static inline float gelu_tanh(float x)
{
    return 0.5f * x * (1.0f + tanhf(0.79788452f * (x + 0.044715f * x * x * x)));
}

// log(1 + exp(x)) without overflow for large x
static inline float bnll(float x)
{
    return x > 0.f ? x + logf(1.f + expf(-x)) : logf(1.f + expf(x));
}

static inline float elu(float x, float alpha)
{
    return x < 0.f ? alpha * (expf(x) - 1.f) : x;
}

// alpha_lambda = alpha * lambda, precomputed as ncnn does
static inline float selu(float x, float alpha_lambda, float lambda)
{
    return x < 0.f ? (expf(x) - 1.f) * alpha_lambda : x * lambda;
}

// round to nearest, ties to even, whatever the current rounding mode
// (what ncnn gets from nearbyintf under FE_TONEAREST)
static inline float round_half_even(float x)
{
    float r = roundf(x); // ties away from zero
    if (fabsf(r - x) == 0.5f)
        r = 2.f * roundf(x * 0.5f);
    return r;
}

} // namespace mathops

// Applies y = f(x) in place to every element of an fp32, elempack-1 blob of
// dims 1..4, one channel per OpenMP iteration. Returns -1 (logged, naming the
// layer) for another storage format.
template<typename F>
static inline int apply_inplace(Mat& m, const Option& opt, const char* type, const std::string& name, F f)
{
    if (m.elempack != 1 || m.elemsize != 4u)
    {
        KITE_LOGE("%s '%s': expects fp32 elempack 1, got elemsize %d elempack %d", type, name.c_str(),
                  (int)m.elemsize, m.elempack);
        return -1;
    }
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t size = (size_t)m.w * m.h * m.d;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* ptr = (float*)m.data + (m.dims >= 3 ? m.cstep * q : 0);
        for (size_t i = 0; i < size; i++)
            ptr[i] = f(ptr[i]);
    }
    return 0;
}

} // namespace kite

#endif // KITE_LAYER_COMMON_MATH_OPS_H
