// int8 convolution kernels for the x86 drivers: the int32 sums of the
// reference's ConvInt8Job computed with pairwise int16 multiply-adds
// (pmaddwd: SSE2 / AVX2 / AVX-512BW), then the shared epilogue
// conv_int8_finish, so the outputs are bit-identical to the reference.
//
// Convolution: a GEMM with implicit im2col. Vectors run along the output
// channels: weights are packed once as int16 pairs (k, k+1) per channel into
// panels of NR = 2L channels, [K/2][NR]; each MR-pixel tile of the padded
// input is packed as the matching pairs [K/2][MR], and one broadcast pair
// times one weight vector adds two products per lane.
//
// Included through cpu/conv_int8_cpu.h by the layer/cpu drivers; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_X86_CONV_INT8_H
#define KITE_X86_CONV_INT8_H

#include "common/conv_kernel.h"
#include "cpu/conv_vec_cpu.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

typedef simd::VF<simd::VI::L> VIF; // float lanes matching simd::VI

// conv_int8_finish on L lanes (sums already as float: exact below 2^24, else
// rounded as the scalar (float) cast): same operations and roundings, so the
// same values. An int8 result comes back as an integral float in [-127, 127].
// Only for activations up to Clip, and with a hardware FMA where the
// numerics ask for one rounding (int8_vec_finish_ok).
static inline bool int8_vec_finish_ok(const Activation& act, int numerics)
{
#if !defined(__FMA__)
    // one rounding for sum * scale + bias needs a hardware FMA
    if (numerics & CONV_INT8_FMA_BIAS)
        return false;
#else
    (void)numerics;
#endif
    return act.type == ACTIVATION_NONE || act.type == ACTIVATION_RELU || act.type == ACTIVATION_LEAKYRELU
           || act.type == ACTIVATION_CLIP;
}

// float2int8_ps: cpu/conv_vec_cpu.h

static inline VIF::T int8_vec_finish(VIF::T sum, VIF::T scale_in, VIF::T bias, VIF::T scale_out, bool requant,
                                       int numerics, const Activation& act)
{
    typedef VIF V;
    V::T v = (numerics & CONV_INT8_FMA_BIAS) ? V::fmadd(sum, scale_in, bias) : V::add(V::mul(sum, scale_in), bias);
    v = activate<simd::VI::L>(v, act);
    if (!requant)
        return v;
    v = V::mul(v, scale_out);
    const V::T sign = V::bits(0x80000000u);
    if (numerics & CONV_INT8_ROUND_ADDHALF)
    {
        // float2int8_addhalf: + copysign(0.5), truncate; NaN -> -127
        const V::T a = V::add(v, V::or_bits(V::and_bits(v, sign), V::set1(0.5f)));
        V::T t = V::or_bits(V::and_bits(a, sign), V::floor(V::abs(a)));
        t = V::min(V::max(t, V::set1(-127.f)), V::set1(127.f));
        return V::select(V::eq(a, a), t, V::set1(-127.f));
    }
    return float2int8_ps<V>(v);
}

// the first n of the L lanes of integral floats in [-127, 127] as int8
static inline void store_int8(signed char* p, VIF::T f, int n)
{
#if defined(__AVX512BW__)
    const __m128i b = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(f));
    if (n == 16)
        _mm_storeu_si128((__m128i*)p, b);
    else
        _mm_mask_storeu_epi8(p, (__mmask16)((1u << n) - 1), b);
#else
#if defined(__AVX2__)
    const __m256i i = _mm256_cvtps_epi32(f);
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
#else
    const __m128i w = _mm_packs_epi32(_mm_cvtps_epi32(f), _mm_setzero_si128());
#endif
    const __m128i b = _mm_packs_epi16(w, w);
    if (n == 8)
        _mm_storel_epi64((__m128i*)p, b);
    else
    {
        signed char tmp[16];
        _mm_storeu_si128((__m128i*)tmp, b);
        memcpy(p, tmp, n);
    }
#endif
}

// the first n of the L float lanes
static inline void store_f32(float* p, VIF::T f, int n)
{
#if defined(__AVX512BW__)
    if (n == 16)
        _mm512_storeu_ps(p, f);
    else
        _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1), f);
#else
    if (n == simd::VI::L)
        VIF::store(p, f);
    else
    {
        float tmp[simd::VI::L];
        VIF::store(tmp, f);
        memcpy(p, tmp, n * sizeof(float));
    }
#endif
}

// 16 rows of 16 bytes -> their transpose (row i = byte i of every input row)
static inline void transpose_16x16_i8(const __m128i* in, __m128i* out)
{
    __m128i x[4][4];
    for (int g = 0; g < 4; g++)
    {
        // rows 4g..4g+3 as quads of one column each: x[g][k] = columns 4k..4k+3
        const __m128i t0 = _mm_unpacklo_epi8(in[4 * g], in[4 * g + 1]), t1 = _mm_unpackhi_epi8(in[4 * g], in[4 * g + 1]);
        const __m128i t2 = _mm_unpacklo_epi8(in[4 * g + 2], in[4 * g + 3]), t3 = _mm_unpackhi_epi8(in[4 * g + 2], in[4 * g + 3]);
        x[g][0] = _mm_unpacklo_epi16(t0, t2);
        x[g][1] = _mm_unpackhi_epi16(t0, t2);
        x[g][2] = _mm_unpacklo_epi16(t1, t3);
        x[g][3] = _mm_unpackhi_epi16(t1, t3);
    }
    for (int k = 0; k < 4; k++)
    {
        // a 4x4 transpose of the quads
        const __m128i ab0 = _mm_unpacklo_epi32(x[0][k], x[1][k]), ab1 = _mm_unpackhi_epi32(x[0][k], x[1][k]);
        const __m128i cd0 = _mm_unpacklo_epi32(x[2][k], x[3][k]), cd1 = _mm_unpackhi_epi32(x[2][k], x[3][k]);
        out[4 * k + 0] = _mm_unpacklo_epi64(ab0, cd0);
        out[4 * k + 1] = _mm_unpackhi_epi64(ab0, cd0);
        out[4 * k + 2] = _mm_unpacklo_epi64(ab1, cd1);
        out[4 * k + 3] = _mm_unpackhi_epi64(ab1, cd1);
    }
}

// Quantize a packed fp32 blob (elempack P, dims 3) into a planar int8 one with
// one scale: float2int8(x * scale) per value, as quantize_blob_int8 on the
// unpacked blob (P 1: the same on a planar blob)
template<int P>
static inline int quantize_unpack_int8(const Mat& in, Mat& out, float scale, Allocator* allocator, int num_threads)
{
    typedef simd::VF<P == 1 ? simd::VI::L : P> V;
    out.create(in.w, in.h, in.c * P, (size_t)1u, allocator);
    if (out.empty())
        return -100;
    const int size = in.w * in.h;
    const typename V::T s = V::set1(scale);
    #pragma omp parallel for num_threads(num_threads)
    for (int g = 0; g < in.c; g++)
    {
        const float* src = (const float*)in.data + in.cstep * P * g;
        signed char* dst = (signed char*)out.data + out.cstep * P * g;
        int n = 0;
        if constexpr (P == 1)
        {
            // runs of L values, the tail as the reference
            for (; n + simd::VI::L <= size; n += simd::VI::L)
                store_int8(dst + n, float2int8_ps<V>(V::mul(V::load(src + n), s)), simd::VI::L);
            for (; n < size; n++)
                dst[n] = float2int8(src[n] * scale);
            continue;
        }
#if defined(__AVX512BW__)
        if constexpr (P == 16)
        {
            // 16 pixels at a time: 16 x 16 int8, transposed into the planes
            for (; n + 16 <= size; n += 16)
            {
                __m128i rows[16], cols[16];
                for (int r = 0; r < 16; r++)
                    rows[r] = _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(float2int8_ps<V>(V::mul(V::load(src + (size_t)(n + r) * 16), s))));
                transpose_16x16_i8(rows, cols);
                for (int i = 0; i < 16; i++)
                    _mm_storeu_si128((__m128i*)(dst + out.cstep * i + n), cols[i]);
            }
        }
#endif
        float lanes[V::N];
        for (; n < size; n++)
        {
            V::store(lanes, float2int8_ps<V>(V::mul(V::load(src + (size_t)n * P), s)));
            for (int i = 0; i < P; i++)
                dst[out.cstep * i + n] = (signed char)(int)lanes[i];
        }
    }
    return 0;
}

static const int kInt8MR = simd::VI::L == 16 ? 8 : 6; // pixels per tile
static const int kInt8NR = 2 * simd::VI::L;           // output channels per panel

static inline int32_t int16_pair(int lo, int hi)
{
    return (int32_t)(((uint32_t)(uint16_t)(int16_t)hi << 16) | (uint32_t)(uint16_t)(int16_t)lo);
}

struct ConvInt8PackedWeights
{
    int M = 0, K = 0, K2 = 0; // output channels, inch * maxk, pairs
    std::vector<int32_t> w;   // [ceil(M/NR)][K2][NR]
    int panels() const { return (M + kInt8NR - 1) / kInt8NR; }
};

// weight [M][K] int8 (ncnn's [out][in][kh][kw])
static inline void conv_int8_pack_weights(const signed char* weight, int M, int K, ConvInt8PackedWeights& out)
{
    out.M = M;
    out.K = K;
    out.K2 = (K + 1) / 2;
    out.w.assign((size_t)out.panels() * out.K2 * kInt8NR, 0);
    for (int m = 0; m < M; m++)
    {
        const signed char* wm = weight + (size_t)m * K;
        int32_t* dst = out.w.data() + (size_t)(m / kInt8NR) * out.K2 * kInt8NR + m % kInt8NR;
        for (int k2 = 0; k2 < out.K2; k2++)
        {
            const int k = 2 * k2;
            dst[(size_t)k2 * kInt8NR] = int16_pair(wm[k], k + 1 < K ? wm[k + 1] : 0);
        }
    }
}

// The job's input as planes of W x H (out.w/out.h follow from the output
// size, stride and kernel extent), plane stride *cs: the input itself where
// no padding is read, else a copy with the padding made real (one channel per
// iteration, in parallel)
static inline const signed char* conv_int8_padded_input(const ConvInt8Job& j, std::vector<signed char>& padded, int* pw,
                                                        int* ph, size_t* cs, int num_threads)
{
    const ConvGeometry& g = j.g;
    *pw = (j.out.w - 1) * g.stride_w + conv_kernel_extent(g.kernel_w, g.dilation_w);
    *ph = (j.out.h - 1) * g.stride_h + conv_kernel_extent(g.kernel_h, g.dilation_h);
    const int W = *pw, H = *ph;
    if (g.pad_left == 0 && g.pad_top == 0 && W == j.in.w && H <= j.in.h)
    {
        *cs = j.in.cstep;
        return (const signed char*)j.in.data;
    }
    *cs = (size_t)W * H;
    padded.resize((size_t)j.in.c * W * H);
    // columns of the padded row that hold input values
    const int x0 = std::max(0, g.pad_left), x1 = std::min(W, g.pad_left + j.in.w);
    signed char* base = padded.data();
    #pragma omp parallel for num_threads(num_threads)
    for (int q = 0; q < j.in.c; q++)
    {
        const signed char* src = (const signed char*)j.in.data + j.in.cstep * q;
        signed char* dst = base + (size_t)q * W * H;
        for (int y = 0; y < H; y++, dst += W)
        {
            const int iy = y - g.pad_top;
            if (iy < 0 || iy >= j.in.h || x1 <= x0)
            {
                memset(dst, j.pad_value, W);
                continue;
            }
            memset(dst, j.pad_value, x0);
            memcpy(dst + x0, src + (size_t)iy * j.in.w + (x0 - g.pad_left), x1 - x0);
            memset(dst + x1, j.pad_value, W - x1);
        }
    }
    return base;
}

// the offset of k = q * maxk + tap from a pixel's window origin in the
// input planes (W wide, plane stride cs)
static inline void conv_int8_tap_offsets(const ConvInt8Job& j, int W, size_t cs, std::vector<int>& koff)
{
    const ConvGeometry& g = j.g;
    koff.resize((size_t)j.in.c * g.kernel_w * g.kernel_h);
    for (int q = 0, k = 0; q < j.in.c; q++)
        for (int ky = 0; ky < g.kernel_h; ky++)
            for (int kx = 0; kx < g.kernel_w; kx++, k++)
                koff[k] = (int)(q * cs) + ky * g.dilation_h * W + kx * g.dilation_w;
}

// Convolution (group 1, 2-D) for the job: bit-identical to the reference
static inline void conv_int8_gemm(const ConvInt8Job& j, const ConvInt8PackedWeights& pw, int num_threads)
{
    const int MR = kInt8MR, NR = kInt8NR, L = simd::VI::L;
    const ConvGeometry& g = j.g;
    int W = 0, H = 0;
    size_t cs = 0;
    std::vector<signed char> padded;
    const signed char* src = conv_int8_padded_input(j, padded, &W, &H, &cs, num_threads);

    const int K = pw.K, K2 = pw.K2, M = pw.M;
    std::vector<int> koff;
    conv_int8_tap_offsets(j, W, cs, koff);

    const int outw = j.out.w;
    const int N = j.out.w * j.out.h;
    const int tiles = (N + MR - 1) / MR;
    int chunk = std::max(1, (int)(65536 / ((size_t)K2 * MR)));
    chunk = std::max(1, std::min(chunk, (tiles + num_threads - 1) / num_threads));
    const int chunks = (tiles + chunk - 1) / chunk;
    const int* ko = koff.data();
    // per-channel factors padded to whole panels for the vector epilogue
    const bool requant = j.scale_out != nullptr;
    const bool vec_finish = int8_vec_finish_ok(j.act, j.numerics);
    std::vector<float> scale_in((size_t)pw.panels() * NR, 0.f), bias(scale_in.size(), 0.f), scale_out(scale_in.size(), 1.f);
    for (int m = 0; m < M; m++)
    {
        scale_in[m] = j.scale_in[m];
        bias[m] = j.bias ? j.bias[m] : 0.f;
        scale_out[m] = requant ? j.scale_out[m] : 1.f;
    }

    // output (m, n) at out_offset(m) + n * op: planar, or packed fp32 (requant
    // outputs are planar int8)
    const int op = j.out_elempack;
    auto out_offset = [&](int m) -> size_t { return j.out.cstep * op * (size_t)(m / op) + m % op; };

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<int32_t> tile((size_t)chunk * K2 * MR);
        int32_t sums[kInt8MR * kInt8NR];
        int nbase[kInt8MR];
        #pragma omp for schedule(dynamic)
        for (int ci = 0; ci < chunks; ci++)
        {
            const int t0 = ci * chunk, t1 = std::min(tiles, t0 + chunk);
            for (int t = t0; t < t1; t++)
            {
                const int n0 = t * MR, nn = std::min(MR, N - n0);
                for (int r = 0; r < MR; r++)
                {
                    const int n = std::min(n0 + r, N - 1);
                    nbase[r] = (n / outw) * g.stride_h * W + (n % outw) * g.stride_w;
                }
                int32_t* d = tile.data() + (size_t)(t - t0) * K2 * MR;
                for (int k2 = 0; k2 < K2; k2++)
                {
                    const int k = 2 * k2;
                    const signed char* s0 = src + ko[k];
                    const signed char* s1 = k + 1 < K ? src + ko[k + 1] : nullptr;
                    for (int r = 0; r < MR; r++)
                        d[r] = int16_pair(r < nn ? s0[nbase[r]] : 0, (s1 && r < nn) ? s1[nbase[r]] : 0);
                    d += MR;
                }
            }
            for (int p = 0; p < pw.panels(); p++)
            {
                const int32_t* wp = pw.w.data() + (size_t)p * K2 * NR;
                const int m0 = p * NR;
                for (int t = t0; t < t1; t++)
                {
                    const int n0 = t * MR, nn = std::min(MR, N - n0);
                    const int32_t* a = tile.data() + (size_t)(t - t0) * K2 * MR;
                    const int32_t* w = wp;
                    simd::VI::T c0[kInt8MR], c1[kInt8MR];
#pragma GCC unroll 16
                    for (int r = 0; r < MR; r++)
                        c0[r] = c1[r] = simd::VI::zero();
                    for (int k2 = 0; k2 < K2; k2++)
                    {
                        const simd::VI::T w0 = simd::VI::load(w), w1 = simd::VI::load(w + L);
#pragma GCC unroll 16
                        for (int r = 0; r < MR; r++)
                        {
                            c0[r] = simd::VI::madd(c0[r], a[r], w0);
                            c1[r] = simd::VI::madd(c1[r], a[r], w1);
                        }
                        a += MR;
                        w += NR;
                    }
                    const int mm = std::min(NR, M - m0);
                    // (spilled with constant indices only, so the loop above
                    // keeps every accumulator in a register)
#pragma GCC unroll 16
                    for (int r = 0; r < MR; r++)
                    {
                        simd::VI::store(sums + r * NR, c0[r]);
                        simd::VI::store(sums + r * NR + L, c1[r]);
                    }
                    if (vec_finish)
                    {
                        // finished values (fp32, or integral floats for int8) per lane, in place
                        float* fin = (float*)sums;
                        for (int jv = 0; jv < 2; jv++)
                        {
                            const int o = m0 + jv * L;
                            const VIF::T si = VIF::load(scale_in.data() + o), bi = VIF::load(bias.data() + o);
                            const VIF::T so = VIF::load(scale_out.data() + o);
                            for (int r = 0; r < nn; r++)
                                VIF::store(fin + r * NR + jv * L, int8_vec_finish(simd::VI::to_float(simd::VI::load(sums + r * NR + jv * L)),
                                                                                    si, bi, so, requant, j.numerics, j.act));
                        }
                        for (int jj = 0; jj < mm; jj++)
                        {
                            const size_t o = out_offset(m0 + jj) + (size_t)n0 * op;
                            if (requant)
                                for (int r = 0; r < nn; r++)
                                    ((signed char*)j.out.data)[o + r] = (signed char)(int)fin[r * NR + jj];
                            else
                                for (int r = 0; r < nn; r++)
                                    ((float*)j.out.data)[o + (size_t)r * op] = fin[r * NR + jj];
                        }
                        continue;
                    }
                    for (int jj = 0; jj < mm; jj++)
                    {
                        const int m = m0 + jj;
                        for (int r = 0; r < nn; r++)
                            conv_int8_finish(sums[r * NR + jj], m, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                             out_offset(m) + (size_t)(n0 + r) * op);
                    }
                }
            }
        }
    }
}

// One input row as int16: pad_left values of pad, the n int8 values of src
// sign-extended, pad up to W
static inline void int8_row_to_int16(const signed char* src, int n, int pad_left, int W, int16_t pad, int16_t* dst)
{
    int x = 0;
    for (; x < pad_left; x++)
        dst[x] = pad;
    int i = 0;
    for (; i + 16 <= n; i += 16)
    {
        const __m128i v = _mm_loadu_si128((const __m128i*)(src + i));
        _mm_storeu_si128((__m128i*)(dst + x + i), _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8));
        _mm_storeu_si128((__m128i*)(dst + x + i + 8), _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8));
    }
    if (i + 8 <= n)
    {
        const __m128i v = _mm_loadl_epi64((const __m128i*)(src + i));
        _mm_storeu_si128((__m128i*)(dst + x + i), _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8));
        i += 8;
    }
    for (; i < n; i++)
        dst[x + i] = src[i];
    for (x += n; x < W; x++)
        dst[x] = pad;
}

// Depth-wise (group == channels == outputs, 2-D), pmaddwd on pairs of taps.
// Per channel the padded plane is made int16 (in parallel, in a per-thread
// buffer), and each int32 lane of a vector holds the pair of inputs that
// two horizontally adjacent taps multiply for one output:
//   stride 1: a pair plane P[x] = (x16[x], x16[x + dilation]) (4 bytes a
//     column), taps kx, kx+1 of output ox at P[ox + kx * dilation];
//   stride 2, dilation 1: the int16 plane itself read as pairs, taps kx,
//     kx+1 of output ox at x16[2 ox + kx];
// so one multiply-add takes two taps (an odd last tap pairs with weight 0).
// Other strides take the taps one by one. Output rows run L lanes at a
// time, kCV vectors kept in registers through every tap, then the vector
// epilogue where the numerics allow it. The int32 sums are the reference's.
// fp32 outputs may be packed (job.out_elempack E > 1: channel q is lane q % E
// of packed channel q / E; each output row's values are scattered E floats
// apart); int8 outputs are planar.
static inline void conv_int8_depthwise(const ConvInt8Job& j, int num_threads)
{
    const ConvGeometry& g = j.g;
    const int W = (j.out.w - 1) * g.stride_w + conv_kernel_extent(g.kernel_w, g.dilation_w);
    const int H = (j.out.h - 1) * g.stride_h + conv_kernel_extent(g.kernel_h, g.dilation_h);
    const int maxk = g.kernel_w * g.kernel_h;
    const int outw = j.out.w, outh = j.out.h;
    const int L = simd::VI::L;
    const bool requant = j.scale_out != nullptr;
    const bool vec_finish = int8_vec_finish_ok(j.act, j.numerics);
    const int sw = g.stride_w;
    const bool pairs1 = sw == 1, pairs2 = sw == 2 && g.dilation_w == 1;
    const bool paired = pairs1 || pairs2;
    // row pitch in bytes of the plane the vectors read, bytes per output column
    const size_t pitch16 = (size_t)W * 2;
    const size_t pitch = pairs1 ? (size_t)W * 4 : pitch16;
    const int kCV = 4; // row vectors kept in registers
    // (vector loads run up to kCV * L lanes past a row's last output)
    const size_t slack = (size_t)(kCV + 2) * L * 4 + 64;
    // tap pairs: byte offset from the output's window origin, int16 weights
    const int npair_row = paired ? (g.kernel_w + 1) / 2 : 0;
    std::vector<int> pair_ofs((size_t)npair_row * g.kernel_h);
    for (int ky = 0; ky < g.kernel_h; ky++)
        for (int t = 0; t < npair_row; t++)
            pair_ofs[ky * npair_row + t] = (int)(ky * g.dilation_h * pitch)
                                           + (pairs1 ? 2 * t * g.dilation_w * 4 : 2 * t * 2);
    const int16_t pad16 = j.pad_value;
    const int x0 = std::min(W, std::max(0, g.pad_left)), x1 = std::max(x0, std::min(W, g.pad_left + j.in.w));
    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<int16_t> plane16((size_t)W * H + slack / 2, 0);
        std::vector<int32_t> pairs(pairs1 ? (size_t)W * H + slack / 4 : 0, 0);
        std::vector<int32_t> acc((size_t)outw + L);
        std::vector<int32_t> wpair((size_t)npair_row * g.kernel_h);
        #pragma omp for
        for (int q = 0; q < j.out.c * j.out_elempack; q++)
        {
            const signed char* src = (const signed char*)j.in.data + j.in.cstep * q;
            for (int y = 0; y < H; y++)
            {
                const int iy = y - g.pad_top;
                int16_t* d = plane16.data() + (size_t)y * W;
                if (iy < 0 || iy >= j.in.h)
                    std::fill(d, d + W, pad16);
                else
                    int8_row_to_int16(src + (size_t)iy * j.in.w + (x0 - g.pad_left), x1 - x0, x0, W, pad16, d);
            }
            if (pairs1)
            {
                // P[x] = (x16[x], x16[x + dilation]); past the plane's end the
                // second value is never used with a nonzero weight
                const int dil = g.dilation_w;
                const int16_t* s16 = plane16.data();
                int32_t* p = pairs.data();
                const int n = W * H;
                int x = 0;
                for (; x + 8 + dil <= n; x += 8)
                {
                    const __m128i a = _mm_loadu_si128((const __m128i*)(s16 + x));
                    const __m128i b = _mm_loadu_si128((const __m128i*)(s16 + x + dil));
                    _mm_storeu_si128((__m128i*)(p + x), _mm_unpacklo_epi16(a, b));
                    _mm_storeu_si128((__m128i*)(p + x + 4), _mm_unpackhi_epi16(a, b));
                }
                for (; x < n; x++)
                    p[x] = int16_pair(s16[x], x + dil < n ? s16[x + dil] : 0);
            }
            const signed char* wq = j.weight + (size_t)q * maxk;
            for (int ky = 0; ky < g.kernel_h; ky++)
                for (int t = 0; t < npair_row; t++)
                {
                    const int kx = 2 * t;
                    wpair[ky * npair_row + t] = int16_pair(wq[ky * g.kernel_w + kx], kx + 1 < g.kernel_w ? wq[ky * g.kernel_w + kx + 1] : 0);
                }
            const VIF::T si = VIF::set1(j.scale_in[q]), bi = VIF::set1(j.bias ? j.bias[q] : 0.f);
            const VIF::T so = VIF::set1(requant ? j.scale_out[q] : 1.f);
            const char* base = pairs1 ? (const char*)pairs.data() : (const char*)plane16.data();
            const int np = npair_row * g.kernel_h;
            // output value (oy, ox) of channel q at o + ox * ostride
            const int E = j.out_elempack;
            const size_t ostride = (size_t)E;
            const size_t obase = E == 1 ? j.out.cstep * q : j.out.cstep * E * (size_t)(q / E) + (size_t)(q % E);
            for (int oy = 0; oy < outh; oy++)
            {
                const size_t o = obase + (size_t)oy * outw * ostride;
                if (!paired)
                {
                    // other strides: taps one by one
                    std::fill(acc.begin(), acc.end(), 0);
                    for (int ky = 0; ky < g.kernel_h; ky++)
                        for (int kx = 0; kx < g.kernel_w; kx++)
                        {
                            const int wv = wq[ky * g.kernel_w + kx];
                            const int16_t* s = plane16.data() + (size_t)(oy * g.stride_h + ky * g.dilation_h) * W + kx * g.dilation_w;
                            for (int ox = 0; ox < outw; ox++)
                                acc[ox] += (int)s[ox * sw] * wv;
                        }
                    for (int ox = 0; ox < outw; ox++)
                        conv_int8_finish(acc[ox], q, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                         o + ox * ostride);
                    continue;
                }
                const char* row = base + (size_t)oy * g.stride_h * pitch;
                for (int ox0 = 0; ox0 < outw; ox0 += kCV * L)
                {
                    const int nv = std::min(kCV, (outw - ox0 + L - 1) / L);
                    simd::VI::T a[kCV];
#pragma GCC unroll 8
                    for (int v = 0; v < kCV; v++)
                        a[v] = simd::VI::zero();
                    const char* r0 = row + (size_t)ox0 * 4;
                    for (int t = 0; t < np; t++)
                    {
                        const char* s = r0 + pair_ofs[t];
                        const int32_t wp = wpair[t];
                        // lanes past outw read the next row or the slack and are dropped
#pragma GCC unroll 8
                        for (int v = 0; v < kCV; v++)
                            if (v < nv)
                                a[v] = simd::VI::madd(a[v], wp, simd::VI::load((const int32_t*)(s + v * L * 4)));
                    }
#pragma GCC unroll 8
                    for (int v = 0; v < kCV; v++)
                    {
                        const int ox = ox0 + v * L, cnt = std::min(L, outw - ox);
                        if (v >= nv)
                            break;
                        if (vec_finish)
                        {
                            const VIF::T f = int8_vec_finish(simd::VI::to_float(a[v]), si, bi, so, requant, j.numerics, j.act);
                            if (requant)
                                store_int8((signed char*)j.out.data + o + ox, f, cnt);
                            else if (E == 1)
                                store_f32((float*)j.out.data + o + ox, f, cnt);
                            else
                            {
                                float lanes[simd::VI::L];
                                VIF::store(lanes, f);
                                float* d = (float*)j.out.data + o + ox * ostride;
                                for (int r = 0; r < cnt; r++)
                                    d[r * ostride] = lanes[r];
                            }
                            continue;
                        }
                        simd::VI::store(acc.data(), a[v]);
                        for (int r = 0; r < cnt; r++)
                            conv_int8_finish(acc[r], q, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                             o + (ox + r) * ostride);
                    }
                }
            }
        }
    }
}

// 2L int8 values sign-extended to int16: one simd::VI of int16 pairs
static inline simd::VI::T load_s8_pairs(const signed char* p)
{
#if defined(__AVX512BW__)
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i*)p));
#elif defined(__AVX2__)
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)p));
#else
    const __m128i v = _mm_loadl_epi64((const __m128i*)p);
    return _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
#endif
}

static inline int32_t reduce_add_i32(simd::VI::T v)
{
    int32_t lanes[simd::VI::L];
    simd::VI::store(lanes, v);
    int32_t s = 0;
    for (int i = 0; i < simd::VI::L; i++)
        s += lanes[i];
    return s;
}

// int8 matrix-vector products, exact: sums[m] = sum_k x[k] * w[m * K + k]
// for m in [0, M) (w: M rows of K, as InnerProduct stores its weights), four
// rows at a time in parallel: dot4(wr, s) gives the sums of the first Kv
// values of rows wr[0..3] (the last row repeated past M); the tail is added here
template<class Dot4>
static inline void int8_gemv_quads(const signed char* x, const signed char* w, int M, int K, int Kv, int32_t* sums,
                                   int num_threads, const Dot4& dot4)
{
    const int quads = (M + 3) / 4;
    #pragma omp parallel for num_threads(num_threads)
    for (int qd = 0; qd < quads; qd++)
    {
        const int m0 = qd * 4, mn = std::min(4, M - m0);
        const signed char* wr[4];
        for (int i = 0; i < 4; i++)
            wr[i] = w + (size_t)K * (m0 + std::min(i, mn - 1));
        int32_t s[4];
        dot4(wr, s);
        for (int i = 0; i < mn; i++)
        {
            for (int k = Kv; k < K; k++)
                s[i] += (int)x[k] * (int)wr[i][k];
            sums[m0 + i] = s[i];
        }
    }
}

// int8_gemv_quads with x and the weight rows widened to int16 2L values at a
// time and multiplied pairwise (pmaddwd); four rows share each load of x
static inline void int8_gemv(const signed char* x, const signed char* w, int M, int K, int32_t* sums, int num_threads)
{
    const int V = 2 * simd::VI::L; // int8 values per step
    const int Kv = K / V * V;
    int8_gemv_quads(x, w, M, K, Kv, sums, num_threads, [&](const signed char* const* wr, int32_t* s) {
        simd::VI::T a0 = simd::VI::zero(), a1 = simd::VI::zero(), a2 = simd::VI::zero(), a3 = simd::VI::zero();
        for (int k = 0; k < Kv; k += V)
        {
            const simd::VI::T xv = load_s8_pairs(x + k);
            a0 = simd::VI::add(a0, simd::VI::madd16(xv, load_s8_pairs(wr[0] + k)));
            a1 = simd::VI::add(a1, simd::VI::madd16(xv, load_s8_pairs(wr[1] + k)));
            a2 = simd::VI::add(a2, simd::VI::madd16(xv, load_s8_pairs(wr[2] + k)));
            a3 = simd::VI::add(a3, simd::VI::madd16(xv, load_s8_pairs(wr[3] + k)));
        }
        s[0] = reduce_add_i32(a0);
        s[1] = reduce_add_i32(a1);
        s[2] = reduce_add_i32(a2);
        s[3] = reduce_add_i32(a3);
    });
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_X86_CONV_INT8_H
