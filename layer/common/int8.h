#ifndef KITE_LAYER_COMMON_INT8_H
#define KITE_LAYER_COMMON_INT8_H

// int8 helpers shared by the quantized layers, with ncnn's semantics:
// round half away from zero, then clamp to [-127, 127] (-128 is never produced).

#include "mat.h"

#include <cmath>

namespace kite {

static inline signed char float2int8(float v)
{
    if (!(v == v)) // NaN
        return 0;
    if (v >= 127.f)
        return 127;
    if (v <= -127.f)
        return -127;
    int i = (int)std::round(v);
    if (i > 127)
        i = 127;
    if (i < -127)
        i = -127;
    return (signed char)i;
}

// The float pad value as ncnn writes it into an int8 blob: converted by
// truncation (clamped here so the conversion is defined).
static inline signed char pad_value_int8(float v)
{
    if (!(v == v))
        return 0;
    if (v >= 127.f)
        return 127;
    if (v <= -128.f)
        return -128;
    return (signed char)(int)v;
}

// 1 / (bottom_scale * weight_scale), or 0 when the weight scale is 0 (ncnn's rule
// for channels whose weights are all zero)
static inline float int8_dequant_scale(float bottom_scale, float weight_scale)
{
    if (weight_scale == 0.f)
        return 0.f;
    return 1.f / (bottom_scale * weight_scale);
}

// Quantize n floats with one scale.
static inline void quantize_floats(const float* src, signed char* dst, size_t n, float scale)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = float2int8(src[i] * scale);
}

} // namespace kite

#endif // KITE_LAYER_COMMON_INT8_H
