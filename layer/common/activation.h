#ifndef KITE_LAYER_COMMON_ACTIVATION_H
#define KITE_LAYER_COMMON_ACTIVATION_H

// The activation fused into Convolution, InnerProduct, Deconvolution, ...
// (ncnn's param 9 activation_type and param 10 activation_params).
//
//   0 none
//   1 ReLU        max(v, 0)  (ncnn ignores params here: a leaky slope is type 2)
//   2 LeakyReLU   params[0] = slope (default 0)
//   3 Clip        params[0] = min, params[1] = max (default -FLT_MAX, FLT_MAX)
//   4 Sigmoid     1 / (1 + exp(-v)), v clamped to +-88.376 as ncnn does
//   5 Mish        v * tanh(log(exp(v) + 1))
//   6 HardSwish   params[0] = alpha, params[1] = beta (default 1/6, 0.5):
//                 0 below -beta/alpha, v above 1/alpha - beta/alpha,
//                 else v * (alpha * v + beta)
//
// Missing params take the defaults above (ncnn would read out of bounds).

#include "log.h"
#include "mat.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace kite {

enum ActivationType
{
    ACTIVATION_NONE = 0,
    ACTIVATION_RELU = 1,
    ACTIVATION_LEAKYRELU = 2,
    ACTIVATION_CLIP = 3,
    ACTIVATION_SIGMOID = 4,
    ACTIVATION_MISH = 5,
    ACTIVATION_HARDSWISH = 6,
    ACTIVATION_TYPE_COUNT = 7,
};

// params[i] as float, or def when the array is missing or too short
static inline float activation_param(const Mat& params, int i, float def)
{
    if (params.data == nullptr || params.elemsize != 4 || i < 0 || i >= params.w * params.h * params.c)
        return def;
    return ((const float*)params.data)[i];
}

// The resolved parameters of one activation, so per-element code does not
// look them up again.
struct Activation
{
    int type;
    float p0;
    float p1;

    Activation()
        : type(ACTIVATION_NONE), p0(0.f), p1(0.f)
    {
    }

    Activation(int _type, const Mat& params)
        : type(_type), p0(0.f), p1(0.f)
    {
        switch (type)
        {
        case ACTIVATION_LEAKYRELU:
            p0 = activation_param(params, 0, 0.f);
            break;
        case ACTIVATION_CLIP:
            p0 = activation_param(params, 0, -FLT_MAX);
            p1 = activation_param(params, 1, FLT_MAX);
            break;
        case ACTIVATION_HARDSWISH:
            p0 = activation_param(params, 0, 1.f / 6.f);
            p1 = activation_param(params, 1, 0.5f);
            break;
        default:
            break;
        }
    }

    float operator()(float v) const
    {
        switch (type)
        {
        case ACTIVATION_RELU:
            return v > 0.f ? v : 0.f;
        case ACTIVATION_LEAKYRELU:
            return v > 0.f ? v : v * p0;
        case ACTIVATION_CLIP:
            if (v < p0)
                v = p0;
            if (v > p1)
                v = p1;
            return v;
        case ACTIVATION_SIGMOID:
            v = std::min(v, 88.3762626647949f);
            v = std::max(v, -88.3762626647949f);
            return 1.f / (1.f + std::exp(-v));
        case ACTIVATION_MISH:
            return v * std::tanh(std::log(std::exp(v) + 1.f));
        case ACTIVATION_HARDSWISH:
        {
            const float lower = -p1 / p0;
            const float upper = 1.f / p0 + lower;
            if (v < lower)
                return 0.f;
            if (v > upper)
                return v;
            return v * (v * p0 + p1);
        }
        default:
            return v;
        }
    }
};

// one value
static inline float activation_ss(float v, int activation_type, const Mat& activation_params)
{
    return Activation(activation_type, activation_params)(v);
}

// in place over a whole fp32 elempack-1 Mat of any dims (channel padding untouched)
static inline void activation_inplace(Mat& m, int activation_type, const Mat& activation_params, int num_threads = 1)
{
    if (activation_type == ACTIVATION_NONE || m.empty())
        return;
    const Activation act(activation_type, activation_params);
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t size = m.dims >= 3 ? (size_t)m.w * m.h * m.d * m.elempack : (size_t)m.w * m.h * m.elempack;
    #pragma omp parallel for num_threads(num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* p = (float*)m.data + (m.dims >= 3 ? m.cstep * m.elempack * q : 0);
        for (size_t i = 0; i < size; i++)
            p[i] = act(p[i]);
    }
}

// load_param check: returns 0, or -1 after logging for an unknown type
static inline int activation_check(int activation_type, const char* layer_type, const char* layer_name)
{
    if (activation_type < 0 || activation_type >= ACTIVATION_TYPE_COUNT)
    {
        KITE_LOGE("%s '%s': unknown activation_type %d (expected 0..6)", layer_type, layer_name, activation_type);
        return -1;
    }
    return 0;
}

} // namespace kite

#endif // KITE_LAYER_COMMON_ACTIVATION_H
