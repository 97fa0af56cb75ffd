#ifndef KITE_LAYER_COMMON_INT8_H
#define KITE_LAYER_COMMON_INT8_H

// int8 helpers shared by the quantized layers, with ncnn's semantics:
// round half away from zero, then clamp to [-127, 127] (-128 is never produced).

#include "mat.h"

#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__SSE__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 1)
#include <xmmintrin.h>
#define KITE_INT8_HAVE_RCPSS 1
#endif

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

// float2int8 as ncnn's x86 SIMD kernels do it (float2int8_sse / _avx / _avx512):
// add +-0.5 (the sign of v) in float, truncate (cvttps), clamp to [-127, 127].
// Differs from float2int8 only at v = +-0.49999997f (0.5 - 2^-25: the sum
// 1 - 2^-25 is a tie that rounds to 1.0, giving +-1 instead of 0) and for what
// cvttps cannot convert (NaN, |v| >= 2^31: INT_MIN, so -127 -- even for +inf).
static inline signed char float2int8_addhalf(float v)
{
    const float a = v + (std::signbit(v) ? -0.5f : 0.5f);
    if (!(a == a) || a >= 2147483648.f || a < -2147483648.f)
        return -127;
    int i = (int)a;
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

// The same dequantize scale as ncnn's x86 packed (elempack 8) depth-wise int8
// kernel computes it: the approximate reciprocal _mm_rcp_ps(bottom_scale *
// weight_scale) (about 12 bits; relative error up to 1.5 * 2^-12), 0 when
// the weight scale is 0. The approximation is the CPU's own (Intel and AMD
// tables differ), so the same instruction is used here to agree with ncnn on
// the machine that runs both. Without SSE it is the exact reciprocal (what
// ncnn's non-x86 builds compute).
static inline float int8_dequant_scale_rcp(float bottom_scale, float weight_scale)
{
    if (weight_scale == 0.f)
        return 0.f;
#if KITE_INT8_HAVE_RCPSS
    return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(bottom_scale * weight_scale)));
#else
    return 1.f / (bottom_scale * weight_scale);
#endif
}

// Quantize n floats with one scale.
static inline void quantize_floats(const float* src, signed char* dst, size_t n, float scale)
{
    // float2int8(src[i] * scale) without the library call (int8 weights are
    // quantized at load time: mobilenet's 4.2 M took ~20 ms through
    // std::round): clamp |v| to 127 (NaN -> 127), truncate, add one where the
    // dropped fraction is >= 0.5 (a - t is exact), restore the sign, NaN -> 0
    size_t i = 0;
#if defined(__SSE2__)
    const __m128 vscale = _mm_set1_ps(scale), signbit = _mm_set1_ps(-0.f);
    const __m128 lim = _mm_set1_ps(127.f), half = _mm_set1_ps(0.5f);
    for (; i + 4 <= n; i += 4)
    {
        const __m128 v = _mm_mul_ps(_mm_loadu_ps(src + i), vscale);
        const __m128 a = _mm_min_ps(_mm_andnot_ps(signbit, v), lim); // minps gives 127 for NaN
        __m128i r = _mm_cvttps_epi32(a);
        const __m128 up = _mm_cmpge_ps(_mm_sub_ps(a, _mm_cvtepi32_ps(r)), half);
        r = _mm_sub_epi32(r, _mm_castps_si128(up));
        const __m128i neg = _mm_castps_si128(_mm_cmplt_ps(v, _mm_setzero_ps()));
        r = _mm_sub_epi32(_mm_xor_si128(r, neg), neg);
        r = _mm_and_si128(r, _mm_castps_si128(_mm_cmpord_ps(v, v)));
        r = _mm_packs_epi32(r, r);
        r = _mm_packs_epi16(r, r);
        const int packed = _mm_cvtsi128_si32(r);
        memcpy(dst + i, &packed, 4);
    }
#endif
    for (; i < n; i++)
    {
        const float v = src[i] * scale;
        float a = std::fabs(v);
        a = a < 127.f ? a : 127.f;
        float t = (float)(int)a;
        t += a - t >= 0.5f ? 1.f : 0.f;
        const int r = (int)t;
        dst[i] = (signed char)(v == v ? (v < 0.f ? -r : r) : 0);
    }
}

} // namespace kite

#endif // KITE_LAYER_COMMON_INT8_H
