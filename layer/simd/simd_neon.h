#ifndef KITE_LAYER_SIMD_NEON_H
#define KITE_LAYER_SIMD_NEON_H

// NEON counterpart of simd_x86.h: VF<4> is one float32x4_t behind the same
// static functions (see simd_x86.h for the list), so kernels and
// simd_math.h templates written on VF<N> run on ARM unchanged. VF<1> is the
// scalar wrapper of simd_x86.h (plain C++, no x86 code without __SSE2__).
//
// layer/cpu/*.cpp are compiled once per ARM level (neon, arm82) inside
// kite::KITE_ISA_NS. On arm82 (armv8.2-a+fp16) HF8 below is eight fp16 lanes
// in one float16x8_t with fp16 arithmetic: the elempack 8 fp16 path.

#include "simd_x86.h"

#if defined(__ARM_NEON)
#include <arm_neon.h>

namespace kite {
namespace KITE_ISA_NS {
namespace simd {

#undef KITE_SIMD_MAX_N
#define KITE_SIMD_MAX_N 4

// fp16 storage pays off where the conversion is one instruction (aarch64's
// fcvtl/fcvtn); drivers shared with x86 read this as "fp16 storage supported"
#undef KITE_SIMD_F16C
#if defined(__aarch64__)
#define KITE_SIMD_F16C 1
#else
#define KITE_SIMD_F16C 0
#endif

template<>
struct VF<4>
{
    typedef float32x4_t T;
    typedef uint32x4_t M;
    static const int N = 4;
    static T zero() { return vdupq_n_f32(0.f); }
    static T set1(float v) { return vdupq_n_f32(v); }
    static T load(const float* p) { return vld1q_f32(p); }
    static void store(float* p, T v) { vst1q_f32(p, v); }
#if defined(__aarch64__)
    static T load(const unsigned short* p) { return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))); }
    static void store(unsigned short* p, T v) { vst1_u16(p, vreinterpret_u16_f16(vcvt_f16_f32(v))); }
#else
    // armv7 -mfpu=neon has no half-precision conversion instruction
    static T load(const unsigned short* p)
    {
        float t[4];
        for (int i = 0; i < 4; i++)
            t[i] = float16_to_float32(p[i]);
        return vld1q_f32(t);
    }
    static void store(unsigned short* p, T v)
    {
        float t[4];
        vst1q_f32(t, v);
        for (int i = 0; i < 4; i++)
            p[i] = float32_to_float16(t[i]);
    }
#endif
    static T add(T a, T b) { return vaddq_f32(a, b); }
    static T sub(T a, T b) { return vsubq_f32(a, b); }
    static T mul(T a, T b) { return vmulq_f32(a, b); }
    static T min(T a, T b) { return vminq_f32(a, b); }
    static T max(T a, T b) { return vmaxq_f32(a, b); }
    static T abs(T a) { return vabsq_f32(a); }
    static T neg(T a) { return vnegq_f32(a); }
#if defined(__aarch64__)
    static T div(T a, T b) { return vdivq_f32(a, b); }
    static T sqrt(T a) { return vsqrtq_f32(a); }
    static T floor(T a) { return vrndmq_f32(a); }
    static T fmadd(T a, T b, T c) { return vfmaq_f32(c, a, b); }
    static T fnmadd(T a, T b, T c) { return vfmsq_f32(c, a, b); }
    static T f2i_bits(T a) { return vreinterpretq_f32_s32(vcvtnq_s32_f32(a)); }
    static float reduce_add(T a) { return vaddvq_f32(a); }
    static float reduce_max(T a) { return vmaxvq_f32(a); }
#else
    // armv7: no vector divide/sqrt/round (estimates only): exact scalar lanes
    static T div(T a, T b) { return lanewise(a, b, [](float x, float y) { return x / y; }); }
    static T sqrt(T a) { return lanewise(a, a, [](float x, float) { return std::sqrt(x); }); }
    static T floor(T a) { return lanewise(a, a, [](float x, float) { return std::floor(x); }); }
    static T fmadd(T a, T b, T c) { return vmlaq_f32(c, a, b); }
    static T fnmadd(T a, T b, T c) { return vmlsq_f32(c, a, b); }
    static T f2i_bits(T a) { return lanewise(a, a, [](float x, float) { return VF<1>::f2i_bits(x); }); }
    static float reduce_add(T a)
    {
        float32x2_t s = vadd_f32(vget_low_f32(a), vget_high_f32(a));
        return vget_lane_f32(vpadd_f32(s, s), 0);
    }
    static float reduce_max(T a)
    {
        float32x2_t s = vmax_f32(vget_low_f32(a), vget_high_f32(a));
        return vget_lane_f32(vpmax_f32(s, s), 0);
    }
    template<class F>
    static T lanewise(T a, T b, F f)
    {
        float x[4], y[4];
        vst1q_f32(x, a);
        vst1q_f32(y, b);
        for (int i = 0; i < 4; i++)
            x[i] = f(x[i], y[i]);
        return vld1q_f32(x);
    }
#endif
    static M lt(T a, T b) { return vcltq_f32(a, b); }
    static M le(T a, T b) { return vcleq_f32(a, b); }
    static M gt(T a, T b) { return vcgtq_f32(a, b); }
    static M eq(T a, T b) { return vceqq_f32(a, b); }
    static T select(M m, T a, T b) { return vbslq_f32(m, a, b); }
    static T bits(unsigned int u) { return vreinterpretq_f32_u32(vdupq_n_u32(u)); }
    static T and_bits(T a, T b) { return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b))); }
    static T or_bits(T a, T b) { return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b))); }
    static T i2f_bits(T a) { return vcvtq_f32_s32(vreinterpretq_s32_f32(a)); }
};

#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#define KITE_SIMD_HF8 1
// eight fp16 lanes with fp16 arithmetic (armv8.2-a+fp16); storage is the
// fp16 bit pattern kite's fp16 Mats hold
struct HF8
{
    typedef float16x8_t T;
    typedef uint16x8_t M;
    static const int N = 8;
    static T zero() { return vdupq_n_f16((__fp16)0.f); }
    static T set1(float v) { return vdupq_n_f16((__fp16)v); }
    static T load(const unsigned short* p) { return vreinterpretq_f16_u16(vld1q_u16(p)); }
    static void store(unsigned short* p, T v) { vst1q_u16(p, vreinterpretq_u16_f16(v)); }
    static T add(T a, T b) { return vaddq_f16(a, b); }
    static T sub(T a, T b) { return vsubq_f16(a, b); }
    static T mul(T a, T b) { return vmulq_f16(a, b); }
    static T div(T a, T b) { return vdivq_f16(a, b); }
    static T min(T a, T b) { return vminq_f16(a, b); }
    static T max(T a, T b) { return vmaxq_f16(a, b); }
    static T abs(T a) { return vabsq_f16(a); }
    static T neg(T a) { return vnegq_f16(a); }
    static T fmadd(T a, T b, T c) { return vfmaq_f16(c, a, b); }
    static M lt(T a, T b) { return vcltq_f16(a, b); }
    static M gt(T a, T b) { return vcgtq_f16(a, b); }
    static T select(M m, T a, T b) { return vbslq_f16(m, a, b); }
    // widen / narrow halves for the fp32 math (exp, tanh, ...)
    static float32x4_t low(T v) { return vcvt_f32_f16(vget_low_f16(v)); }
    static float32x4_t high(T v) { return vcvt_high_f32_f16(v); }
    static T combine(float32x4_t lo, float32x4_t hi) { return vcombine_f16(vcvt_f16_f32(lo), vcvt_f16_f32(hi)); }
};
#else
#define KITE_SIMD_HF8 0
#endif

} // namespace simd
} // namespace KITE_ISA_NS
} // namespace kite

#endif // __ARM_NEON

#endif // KITE_LAYER_SIMD_NEON_H
