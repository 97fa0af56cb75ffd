#ifndef KITE_LAYER_SIMD_X86_H
#define KITE_LAYER_SIMD_X86_H

// Thin x86 vector wrappers: VF<N> holds N fp32 lanes (1 scalar, 4 SSE2,
// 8 AVX, 16 AVX-512) behind one set of static functions, so a kernel written
// as a template on VF<N> serves every width and every ISA the driver is
// compiled for (layer/cpu/*.cpp are compiled once per ISA level; only the
// widths that ISA has are defined: KITE_SIMD_MAX_N says the widest).
//
//   T            the register type; M the comparison mask type
//   zero set1 load store loadu/storeu are the same (unaligned)
//   load(const unsigned short*) / store(unsigned short*, T): fp16 storage
//                (F16C where compiled with it, else a scalar conversion)
//   add sub mul div min max abs neg sqrt floor fmadd(a,b,c)=a*b+c
//   fnmadd(a,b,c)=c-a*b
//   lt le gt eq -> M ; select(m, a, b) = m ? a : b
//   and_bits or_bits: bitwise; bits(u): a constant from its bit pattern
//   i2f_bits(x): the bits of x read as int32, converted to float
//   f2i_bits(x): x converted to int32 (round to nearest), read as float bits
//   reduce_add reduce_max: horizontal
//
// Everything lives in kite::KITE_ISA_NS::simd: each ISA's copy of these inline
// functions is a distinct symbol, so the linker never mixes an AVX-512 body
// into the SSE2 build of a driver.
//
// Lane i of VF<N> is scalar i of a pack-N element, so VF<elempack> walks a
// packed Mat element by element and VF<1> is the scalar tail of the same code.

#include "mat.h"

#include <cmath>
#include <cstring>

#if defined(__SSE2__) || defined(_M_X64)
#include <immintrin.h>
#endif

// GCC 12 warns about the _mm512_undefined_ps() inside its own AVX-512
// intrinsics wherever they are inlined (GCC bug 105593); the warning is
// about the header, not the caller, so it is silenced for these TUs
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#ifndef KITE_ISA_NS
#error "layer/simd/simd_x86.h needs KITE_ISA_NS (the per-ISA namespace CMake sets for layer/cpu sources)"
#endif

namespace kite {
namespace KITE_ISA_NS {
namespace simd {

template<int N>
struct VF;

template<>
struct VF<1>
{
    typedef float T;
    typedef bool M;
    static const int N = 1;
    static T zero() { return 0.f; }
    static T set1(float v) { return v; }
    static T load(const float* p) { return *p; }
    static void store(float* p, T v) { *p = v; }
    static T load(const unsigned short* p) { return float16_to_float32(*p); }
    static void store(unsigned short* p, T v) { *p = float32_to_float16(v); }
    static T add(T a, T b) { return a + b; }
    static T sub(T a, T b) { return a - b; }
    static T mul(T a, T b) { return a * b; }
    static T div(T a, T b) { return a / b; }
    static T min(T a, T b) { return a < b ? a : b; }
    static T max(T a, T b) { return a > b ? a : b; }
    static T abs(T a) { return std::fabs(a); }
    static T neg(T a) { return -a; }
    static T sqrt(T a) { return std::sqrt(a); }
    static T floor(T a) { return std::floor(a); }
    static T fmadd(T a, T b, T c) { return a * b + c; }
    static T fnmadd(T a, T b, T c) { return c - a * b; }
    static M lt(T a, T b) { return a < b; }
    static M le(T a, T b) { return a <= b; }
    static M gt(T a, T b) { return a > b; }
    static M eq(T a, T b) { return a == b; }
    static T select(M m, T a, T b) { return m ? a : b; }
    static T from_u32(unsigned int u)
    {
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    static unsigned int to_u32(T v)
    {
        unsigned int u;
        memcpy(&u, &v, 4);
        return u;
    }
    static T bits(unsigned int u) { return from_u32(u); }
    static T and_bits(T a, T b) { return from_u32(to_u32(a) & to_u32(b)); }
    static T or_bits(T a, T b) { return from_u32(to_u32(a) | to_u32(b)); }
    static T i2f_bits(T a) { return (float)(int)to_u32(a); }
    static T f2i_bits(T a) { return from_u32((unsigned int)(int)std::nearbyint(a)); }
    static float reduce_add(T a) { return a; }
    static float reduce_max(T a) { return a; }
};

#if defined(__SSE2__) || defined(_M_X64)
#define KITE_SIMD_MAX_N 4
template<>
struct VF<4>
{
    typedef __m128 T;
    typedef __m128 M;
    static const int N = 4;
    static T zero() { return _mm_setzero_ps(); }
    static T set1(float v) { return _mm_set1_ps(v); }
    static T load(const float* p) { return _mm_loadu_ps(p); }
    static void store(float* p, T v) { _mm_storeu_ps(p, v); }
#if defined(__F16C__)
    static T load(const unsigned short* p) { return _mm_cvtph_ps(_mm_loadl_epi64((const __m128i*)p)); }
    static void store(unsigned short* p, T v) { _mm_storel_epi64((__m128i*)p, _mm_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)); }
#else
    static T load(const unsigned short* p)
    {
        return _mm_setr_ps(float16_to_float32(p[0]), float16_to_float32(p[1]), float16_to_float32(p[2]), float16_to_float32(p[3]));
    }
    static void store(unsigned short* p, T v)
    {
        float t[4];
        _mm_storeu_ps(t, v);
        for (int i = 0; i < 4; i++)
            p[i] = float32_to_float16(t[i]);
    }
#endif
    static T add(T a, T b) { return _mm_add_ps(a, b); }
    static T sub(T a, T b) { return _mm_sub_ps(a, b); }
    static T mul(T a, T b) { return _mm_mul_ps(a, b); }
    static T div(T a, T b) { return _mm_div_ps(a, b); }
    static T min(T a, T b) { return _mm_min_ps(a, b); }
    static T max(T a, T b) { return _mm_max_ps(a, b); }
    static T abs(T a) { return _mm_and_ps(a, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff))); }
    static T neg(T a) { return _mm_xor_ps(a, _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u))); }
    static T sqrt(T a) { return _mm_sqrt_ps(a); }
    static T floor(T a)
    {
        // truncate, then step down where that rounded up; |a| >= 2^23 is integral already
        __m128 t = _mm_cvtepi32_ps(_mm_cvttps_epi32(a));
        t = _mm_sub_ps(t, _mm_and_ps(_mm_cmpgt_ps(t, a), _mm_set1_ps(1.f)));
        __m128 big = _mm_cmpge_ps(abs(a), _mm_set1_ps(8388608.f));
        return _mm_or_ps(_mm_and_ps(big, a), _mm_andnot_ps(big, t));
    }
#if defined(__FMA__)
    static T fmadd(T a, T b, T c) { return _mm_fmadd_ps(a, b, c); }
    static T fnmadd(T a, T b, T c) { return _mm_fnmadd_ps(a, b, c); }
#else
    static T fmadd(T a, T b, T c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
    static T fnmadd(T a, T b, T c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
#endif
    static M lt(T a, T b) { return _mm_cmplt_ps(a, b); }
    static M le(T a, T b) { return _mm_cmple_ps(a, b); }
    static M gt(T a, T b) { return _mm_cmpgt_ps(a, b); }
    static M eq(T a, T b) { return _mm_cmpeq_ps(a, b); }
    static T select(M m, T a, T b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }
    static T bits(unsigned int u) { return _mm_castsi128_ps(_mm_set1_epi32((int)u)); }
    static T and_bits(T a, T b) { return _mm_and_ps(a, b); }
    static T or_bits(T a, T b) { return _mm_or_ps(a, b); }
    static T i2f_bits(T a) { return _mm_cvtepi32_ps(_mm_castps_si128(a)); }
    static T f2i_bits(T a) { return _mm_castsi128_ps(_mm_cvtps_epi32(a)); }
    static float reduce_add(T a)
    {
        __m128 s = _mm_add_ps(a, _mm_movehl_ps(a, a));
        s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
        return _mm_cvtss_f32(s);
    }
    static float reduce_max(T a)
    {
        __m128 s = _mm_max_ps(a, _mm_movehl_ps(a, a));
        s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
        return _mm_cvtss_f32(s);
    }
};
#endif // __SSE2__

#if defined(__AVX__)
#undef KITE_SIMD_MAX_N
#define KITE_SIMD_MAX_N 8
template<>
struct VF<8>
{
    typedef __m256 T;
    typedef __m256 M;
    static const int N = 8;
    static T zero() { return _mm256_setzero_ps(); }
    static T set1(float v) { return _mm256_set1_ps(v); }
    static T load(const float* p) { return _mm256_loadu_ps(p); }
    static void store(float* p, T v) { _mm256_storeu_ps(p, v); }
#if defined(__F16C__)
    static T load(const unsigned short* p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p)); }
    static void store(unsigned short* p, T v) { _mm_storeu_si128((__m128i*)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)); }
#else
    static T load(const unsigned short* p) { return _mm256_set_m128(VF<4>::load(p + 4), VF<4>::load(p)); }
    static void store(unsigned short* p, T v)
    {
        VF<4>::store(p, _mm256_castps256_ps128(v));
        VF<4>::store(p + 4, _mm256_extractf128_ps(v, 1));
    }
#endif
    static T add(T a, T b) { return _mm256_add_ps(a, b); }
    static T sub(T a, T b) { return _mm256_sub_ps(a, b); }
    static T mul(T a, T b) { return _mm256_mul_ps(a, b); }
    static T div(T a, T b) { return _mm256_div_ps(a, b); }
    static T min(T a, T b) { return _mm256_min_ps(a, b); }
    static T max(T a, T b) { return _mm256_max_ps(a, b); }
    static T abs(T a) { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
    static T neg(T a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000u))); }
    static T sqrt(T a) { return _mm256_sqrt_ps(a); }
    static T floor(T a) { return _mm256_floor_ps(a); }
#if defined(__FMA__)
    static T fmadd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
    static T fnmadd(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }
#else
    static T fmadd(T a, T b, T c) { return _mm256_add_ps(_mm256_mul_ps(a, b), c); }
    static T fnmadd(T a, T b, T c) { return _mm256_sub_ps(c, _mm256_mul_ps(a, b)); }
#endif
    static M lt(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
    static M le(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
    static M gt(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
    static M eq(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
    static T select(M m, T a, T b) { return _mm256_blendv_ps(b, a, m); }
    static T bits(unsigned int u) { return _mm256_castsi256_ps(_mm256_set1_epi32((int)u)); }
    static T and_bits(T a, T b) { return _mm256_and_ps(a, b); }
    static T or_bits(T a, T b) { return _mm256_or_ps(a, b); }
    static T i2f_bits(T a) { return _mm256_cvtepi32_ps(_mm256_castps_si256(a)); }
    static T f2i_bits(T a) { return _mm256_castsi256_ps(_mm256_cvtps_epi32(a)); }
    static float reduce_add(T a) { return VF<4>::reduce_add(_mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1))); }
    static float reduce_max(T a) { return VF<4>::reduce_max(_mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1))); }
};
#endif // __AVX__

#if defined(__AVX512F__)
#undef KITE_SIMD_MAX_N
#define KITE_SIMD_MAX_N 16
template<>
struct VF<16>
{
    typedef __m512 T;
    typedef __mmask16 M;
    static const int N = 16;
    static T zero() { return _mm512_setzero_ps(); }
    static T set1(float v) { return _mm512_set1_ps(v); }
    static T load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(float* p, T v) { _mm512_storeu_ps(p, v); }
    static T load(const unsigned short* p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p)); }
    static void store(unsigned short* p, T v) { _mm256_storeu_si256((__m256i*)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)); }
    static T add(T a, T b) { return _mm512_add_ps(a, b); }
    static T sub(T a, T b) { return _mm512_sub_ps(a, b); }
    static T mul(T a, T b) { return _mm512_mul_ps(a, b); }
    static T div(T a, T b) { return _mm512_div_ps(a, b); }
    static T min(T a, T b) { return _mm512_min_ps(a, b); }
    static T max(T a, T b) { return _mm512_max_ps(a, b); }
    static T abs(T a) { return _mm512_castsi512_ps(_mm512_and_epi32(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff))); }
    static T neg(T a) { return _mm512_castsi512_ps(_mm512_xor_epi32(_mm512_castps_si512(a), _mm512_set1_epi32((int)0x80000000u))); }
    static T sqrt(T a) { return _mm512_sqrt_ps(a); }
    static T floor(T a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
    static T fmadd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
    static T fnmadd(T a, T b, T c) { return _mm512_fnmadd_ps(a, b, c); }
    static M lt(T a, T b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
    static M le(T a, T b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
    static M gt(T a, T b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
    static M eq(T a, T b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
    static T select(M m, T a, T b) { return _mm512_mask_blend_ps(m, b, a); }
    static T bits(unsigned int u) { return _mm512_castsi512_ps(_mm512_set1_epi32((int)u)); }
    static T and_bits(T a, T b) { return _mm512_castsi512_ps(_mm512_and_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b))); }
    static T or_bits(T a, T b) { return _mm512_castsi512_ps(_mm512_or_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b))); }
    static T i2f_bits(T a) { return _mm512_cvtepi32_ps(_mm512_castps_si512(a)); }
    static T f2i_bits(T a) { return _mm512_castsi512_ps(_mm512_cvtps_epi32(a)); }
    static float reduce_add(T a) { return _mm512_reduce_add_ps(a); }
    static float reduce_max(T a) { return _mm512_reduce_max_ps(a); }
};
#endif // __AVX512F__

#if defined(__SSE2__)
// VI: the L int32 lanes of the x86 int8 kernels (pmaddwd; 16 AVX-512BW, 8
// AVX2, 4 SSE2). madd(acc, pair, w): acc + pairwise int16 products of the
// broadcast pair with w; madd16(a, b): pairwise int16 products of a and b;
// load_s8: L int8 values sign-extended
#if defined(__AVX512BW__)
struct VI
{
    typedef __m512i T;
    static const int L = 16;
    static T zero() { return _mm512_setzero_si512(); }
    static T load(const int32_t* p) { return _mm512_loadu_si512((const void*)p); }
    static void store(int32_t* p, T v) { _mm512_storeu_si512((void*)p, v); }
    static T madd(T acc, int32_t pair, T w) { return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_set1_epi32(pair), w)); }
    static T madd16(T a, T b) { return _mm512_madd_epi16(a, b); }
    static T add(T a, T b) { return _mm512_add_epi32(a, b); }
    static __m512 to_float(T v) { return _mm512_cvtepi32_ps(v); }
    static T load_s8(const signed char* p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i*)p)); }
};
#elif defined(__AVX2__)
struct VI
{
    typedef __m256i T;
    static const int L = 8;
    static T zero() { return _mm256_setzero_si256(); }
    static T load(const int32_t* p) { return _mm256_loadu_si256((const __m256i*)p); }
    static void store(int32_t* p, T v) { _mm256_storeu_si256((__m256i*)p, v); }
    static T madd(T acc, int32_t pair, T w) { return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_set1_epi32(pair), w)); }
    static T madd16(T a, T b) { return _mm256_madd_epi16(a, b); }
    static T add(T a, T b) { return _mm256_add_epi32(a, b); }
    static __m256 to_float(T v) { return _mm256_cvtepi32_ps(v); }
    static T load_s8(const signed char* p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)p)); }
};
#else
struct VI
{
    typedef __m128i T;
    static const int L = 4;
    static T zero() { return _mm_setzero_si128(); }
    static T load(const int32_t* p) { return _mm_loadu_si128((const __m128i*)p); }
    static void store(int32_t* p, T v) { _mm_storeu_si128((__m128i*)p, v); }
    static T madd(T acc, int32_t pair, T w) { return _mm_add_epi32(acc, _mm_madd_epi16(_mm_set1_epi32(pair), w)); }
    static T madd16(T a, T b) { return _mm_madd_epi16(a, b); }
    static T add(T a, T b) { return _mm_add_epi32(a, b); }
    static __m128 to_float(T v) { return _mm_cvtepi32_ps(v); }
    static T load_s8(const signed char* p)
    {
        int32_t v;
        memcpy(&v, p, 4);
        __m128i x = _mm_cvtsi32_si128(v);
        x = _mm_unpacklo_epi8(x, x);
        x = _mm_unpacklo_epi16(x, x);
        return _mm_srai_epi32(x, 24);
    }
};
#endif

#endif // __SSE2__

#ifndef KITE_SIMD_MAX_N
#define KITE_SIMD_MAX_N 1
#endif

// fp16 storage needs a vector conversion to pay off
#if defined(__F16C__) || defined(__AVX512F__)
#define KITE_SIMD_F16C 1
#else
#define KITE_SIMD_F16C 0
#endif

} // namespace simd
} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_SIMD_X86_H
