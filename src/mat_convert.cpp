// Element type conversions: fp32 <-> fp16 / bf16, int8 -> fp32. Whole blobs
// of fp16 <-> fp32 go through F16C (8 lanes a instruction) when the CPU has
// it (checked at run time; this file is built for the baseline ISA), with the
// same results as the scalar conversions (round to nearest even, subnormals,
// inf, quiet NaN).
#include "mat.h"
#include "mat_cast.h"

#include "cpu.h"
#include "log.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define KITE_CAST_F16C 1
#include <immintrin.h>
#else
#define KITE_CAST_F16C 0
#endif

namespace kite {

unsigned short float32_to_float16(float value)
{
    // IEEE 754 binary32 -> binary16, round to nearest even, with inf/nan/subnormals
    unsigned int u;
    memcpy(&u, &value, 4);
    unsigned int sign = (u >> 16) & 0x8000;
    int exponent = (int)((u >> 23) & 0xff);
    unsigned int mantissa = u & 0x7fffff;

    if (exponent == 0xff)
        return (unsigned short)(sign | 0x7c00 | (mantissa ? 0x200 | (mantissa >> 13) : 0));

    int e = exponent - 127 + 15;
    if (e >= 0x1f)
        return (unsigned short)(sign | 0x7c00);
    if (e <= 0)
    {
        if (e < -10)
            return (unsigned short)sign;
        // subnormal half: shift the full mantissa (with hidden bit) into place
        mantissa |= 0x800000;
        int shift = 14 - e;
        unsigned int half = mantissa >> shift;
        unsigned int rem = mantissa & ((1u << shift) - 1);
        unsigned int halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half & 1)))
            half++;
        return (unsigned short)(sign | half);
    }
    unsigned int half = (unsigned int)(e << 10) | (mantissa >> 13);
    unsigned int rem = mantissa & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++; // may carry into the exponent, which is the correct rounding to inf
    return (unsigned short)(sign | half);
}

float float16_to_float32(unsigned short value)
{
    unsigned int sign = ((unsigned int)value & 0x8000) << 16;
    unsigned int exponent = (value >> 10) & 0x1f;
    unsigned int mantissa = value & 0x3ff;
    unsigned int u;
    if (exponent == 0)
    {
        if (mantissa == 0)
            u = sign;
        else
        {
            // subnormal: normalise
            int e = -1;
            do
            {
                e++;
                mantissa <<= 1;
            } while ((mantissa & 0x400) == 0);
            u = sign | ((unsigned int)(127 - 15 - e) << 23) | ((mantissa & 0x3ff) << 13);
        }
    }
    else if (exponent == 0x1f)
        u = sign | 0x7f800000 | (mantissa << 13);
    else
        u = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

namespace {
// shared walk over every scalar of a Mat, output Mat of the same shape with a
// new scalar size; span(p, o, n) converts n scalars of one channel
template<typename From, typename To, typename Span>
void cast_mat_spans(const Mat& src, Mat& dst, const Option& opt, Span span)
{
    const size_t out_elemsize = sizeof(To) * src.elempack;
    Mat out;
    switch (src.dims)
    {
    case 1: out.create(src.w, out_elemsize, src.elempack, opt.blob_allocator); break;
    case 2: out.create(src.w, src.h, out_elemsize, src.elempack, opt.blob_allocator); break;
    case 3: out.create(src.w, src.h, src.c, out_elemsize, src.elempack, opt.blob_allocator); break;
    case 4: out.create(src.w, src.h, src.d, src.c, out_elemsize, src.elempack, opt.blob_allocator); break;
    default: dst.release(); return;
    }
    if (out.empty())
    {
        dst.release();
        return;
    }
    const int channels = src.dims >= 3 ? src.c : 1;
    const size_t n = (size_t)src.w * src.h * src.d * src.elempack;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const From* p = (const From*)((const unsigned char*)src.data + src.cstep * q * src.elemsize);
        To* o = (To*)((unsigned char*)out.data + out.cstep * q * out.elemsize);
        span(p, o, n);
    }
    dst = out;
}

template<typename From, typename To, typename Fn>
void cast_mat(const Mat& src, Mat& dst, const Option& opt, Fn fn)
{
    cast_mat_spans<From, To>(src, dst, opt, [fn](const From* p, To* o, size_t n) {
        for (size_t i = 0; i < n; i++)
            o[i] = fn(p[i]);
    });
}

#if KITE_CAST_F16C
__attribute__((target("avx,f16c"))) void float16_to_float32_f16c(const unsigned short* p, float* o, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(o + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(p + i))));
    for (; i < n; i++)
        o[i] = float16_to_float32(p[i]);
}

__attribute__((target("avx,f16c"))) void float32_to_float16_f16c(const float* p, unsigned short* o, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i*)(o + i), _mm256_cvtps_ph(_mm256_loadu_ps(p + i), _MM_FROUND_TO_NEAREST_INT));
    for (; i < n; i++)
        o[i] = float32_to_float16(p[i]);
}

// the AVX2 level includes F16C (cpu.h)
bool cpu_has_f16c()
{
    static const bool has = cpu_support_isa(CPU_ISA_AVX2);
    return has;
}
#endif
} // namespace

void float32_to_float16_n(const float* src, unsigned short* dst, size_t n)
{
#if KITE_CAST_F16C
    if (cpu_has_f16c())
        return float32_to_float16_f16c(src, dst, n);
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = float32_to_float16(src[i]);
}

void float16_to_float32_n(const unsigned short* src, float* dst, size_t n)
{
#if KITE_CAST_F16C
    if (cpu_has_f16c())
        return float16_to_float32_f16c(src, dst, n);
#endif
    for (size_t i = 0; i < n; i++)
        dst[i] = float16_to_float32(src[i]);
}

void cast_float32_to_float16(const Mat& src, Mat& dst, const Option& opt)
{
#if KITE_CAST_F16C
    if (cpu_has_f16c())
        return cast_mat_spans<float, unsigned short>(src, dst, opt, float32_to_float16_f16c);
#endif
    cast_mat<float, unsigned short>(src, dst, opt, float32_to_float16);
}

void cast_float16_to_float32(const Mat& src, Mat& dst, const Option& opt)
{
#if KITE_CAST_F16C
    if (cpu_has_f16c())
        return cast_mat_spans<unsigned short, float>(src, dst, opt, float16_to_float32_f16c);
#endif
    cast_mat<unsigned short, float>(src, dst, opt, float16_to_float32);
}

void cast_float32_to_bfloat16(const Mat& src, Mat& dst, const Option& opt)
{
    cast_mat<float, unsigned short>(src, dst, opt, float32_to_bfloat16);
}

void cast_bfloat16_to_float32(const Mat& src, Mat& dst, const Option& opt)
{
    cast_mat<unsigned short, float>(src, dst, opt, bfloat16_to_float32);
}

void cast_int8_to_float32(const Mat& src, Mat& dst, const Option& opt)
{
    cast_mat<signed char, float>(src, dst, opt, [](signed char v) { return (float)v; });
}

void cast_to_float32(const Mat& src, Mat& dst, bool src_is_bf16, const Option& opt)
{
    int bits = src.elembits();
    if (bits == 32 || src.empty())
        dst = src;
    else if (bits == 16)
    {
        if (src_is_bf16)
            cast_bfloat16_to_float32(src, dst, opt);
        else
            cast_float16_to_float32(src, dst, opt);
    }
    else if (bits == 8)
        cast_int8_to_float32(src, dst, opt);
    else
    {
        KITE_LOGE("cast_to_float32: unsupported element size %d bits", bits);
        dst.release();
    }
}

} // namespace kite
