// Vector types indexed by elempack for the x86 convolution-family kernels.
//
// VecF<P> holds the P floats of one packed element: P = 1 is a plain float,
// 4 an SSE register, 8 an AVX register (AVX builds), 16 an AVX-512 register
// (AVX-512 builds). Kernels are templates on P, so one source serves every
// elempack the Net can hand a layer on this ISA.
//
// Included by layer/x86/*_x86.cpp inside no namespace; the definitions land
// in kite::KITE_ISA_NS, compiled once per ISA with its flags.
#ifndef KITE_X86_CONV_VEC_H
#define KITE_X86_CONV_VEC_H

#include "common/activation.h"

#include <immintrin.h>

#include <algorithm>

namespace kite {
namespace KITE_ISA_NS {

template<int P>
struct VecF;

template<>
struct VecF<1>
{
    typedef float T;
    static T load(const float* p) { return *p; }
    static void store(float* p, T v) { *p = v; }
    static T set1(float v) { return v; }
    static T zero() { return 0.f; }
    static T fmadd(T a, T b, T c) { return a * b + c; }
    static T mul(T a, T b) { return a * b; }
    static T max(T a, T b) { return a > b ? a : b; }
    static T min(T a, T b) { return a < b ? a : b; }
};

template<>
struct VecF<4>
{
    typedef __m128 T;
    static T load(const float* p) { return _mm_loadu_ps(p); }
    static void store(float* p, T v) { _mm_storeu_ps(p, v); }
    static T set1(float v) { return _mm_set1_ps(v); }
    static T zero() { return _mm_setzero_ps(); }
#if defined(__FMA__)
    static T fmadd(T a, T b, T c) { return _mm_fmadd_ps(a, b, c); }
#else
    static T fmadd(T a, T b, T c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
#endif
    static T mul(T a, T b) { return _mm_mul_ps(a, b); }
    static T max(T a, T b) { return _mm_max_ps(a, b); }
    static T min(T a, T b) { return _mm_min_ps(a, b); }
};

#if defined(__AVX__)
template<>
struct VecF<8>
{
    typedef __m256 T;
    static T load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
    static T set1(float v) { return _mm256_set1_ps(v); }
    static T zero() { return _mm256_setzero_ps(); }
#if defined(__FMA__)
    static T fmadd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
#else
    static T fmadd(T a, T b, T c) { return _mm256_add_ps(_mm256_mul_ps(a, b), c); }
#endif
    static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
    static T max(T a, T b) { return _mm256_max_ps(a, b); }
    static T min(T a, T b) { return _mm256_min_ps(a, b); }
};
#endif

#if defined(__AVX512F__)
template<>
struct VecF<16>
{
    typedef __m512 T;
    static T load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
    static T set1(float v) { return _mm512_set1_ps(v); }
    static T zero() { return _mm512_setzero_ps(); }
    static T fmadd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
    static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
    static T max(T a, T b) { return _mm512_max_ps(a, b); }
    static T min(T a, T b) { return _mm512_min_ps(a, b); }
};
#endif

// the widest elempack this ISA has registers for
#if defined(__AVX512F__)
static const int kMaxPack = 16;
#elif defined(__AVX__)
static const int kMaxPack = 8;
#else
static const int kMaxPack = 4;
#endif

// Store P values after the fused activation: ReLU, LeakyReLU and Clip in
// registers, the others through the scalar definition (same numerics as the
// reference).
template<int P>
static inline void store_activated(float* p, typename VecF<P>::T v, const Activation& act)
{
    typedef VecF<P> V;
    switch (act.type)
    {
    case ACTIVATION_NONE:
        V::store(p, v);
        return;
    case ACTIVATION_RELU:
        V::store(p, V::max(v, V::zero()));
        return;
    case ACTIVATION_LEAKYRELU:
        V::store(p, V::fmadd(V::min(v, V::zero()), V::set1(act.p0), V::max(v, V::zero())));
        return;
    case ACTIVATION_CLIP:
        V::store(p, V::min(V::max(v, V::set1(act.p0)), V::set1(act.p1)));
        return;
    default:
        V::store(p, v);
        for (int i = 0; i < P; i++)
            p[i] = act(p[i]);
        return;
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_X86_CONV_VEC_H
