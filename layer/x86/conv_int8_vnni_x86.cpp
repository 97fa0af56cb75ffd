// The VNNI int8 convolution kernels (see conv_int8_vnni_x86.h). Compiled only
// through the generated wrappers, with KITE_ISA_NS = avx512vnni (AVX-512 +
// -mavx512vnni) or avxvnni (AVX2 + -mavxvnni).
#include "conv_int8_vnni_x86.h"

#include "conv_int8_x86.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace kite {
namespace KITE_ISA_NS {

// L int32 lanes; dp(acc, u, s): acc + the four u8 x s8 products per lane
#if defined(__AVX512VNNI__)
struct VecQ
{
    typedef __m512i T;
    static const int NC = 12; // output channels per panel: 2 x 12 accumulators
    static T zero() { return _mm512_setzero_si512(); }
    static T load(const int32_t* p) { return _mm512_loadu_si512((const void*)p); }
    static void store(int32_t* p, T v) { _mm512_storeu_si512((void*)p, v); }
    static T set1(int32_t v) { return _mm512_set1_epi32(v); }
    static T dp(T acc, T u, T s) { return _mm512_dpbusd_epi32(acc, u, s); }
    static T sub(T a, T b) { return _mm512_sub_epi32(a, b); }
};
#elif defined(__AVXVNNI__)
struct VecQ
{
    typedef __m256i T;
    static const int NC = 6; // 2 x 6 accumulators of the 16 ymm registers
    static T zero() { return _mm256_setzero_si256(); }
    static T load(const int32_t* p) { return _mm256_loadu_si256((const __m256i*)p); }
    static void store(int32_t* p, T v) { _mm256_storeu_si256((__m256i*)p, v); }
    static T set1(int32_t v) { return _mm256_set1_epi32(v); }
    static T dp(T acc, T u, T s) { return _mm256_dpbusd_avx_epi32(acc, u, s); }
    static T sub(T a, T b) { return _mm256_sub_epi32(a, b); }
};
#else
#error "conv_int8_vnni_x86.cpp needs -mavx512vnni or -mavxvnni"
#endif

static const int kL = VecI::L;  // lanes (pixels per vector)
static const int kNV = 2;       // pixel vectors per tile
static const int kTN = kNV * kL; // pixels per tile
static const int kNC = VecQ::NC;

void conv_int8_vnni_pack_weights(const signed char* weight, int M, int K, ConvInt8VnniWeights& out)
{
    out.M = M;
    out.K = K;
    out.K4 = (K + 3) / 4;
    out.NC = kNC;
    out.w.assign((size_t)out.panels() * out.K4 * kNC, 0);
    out.comp.assign(M, 0);
    for (int m = 0; m < M; m++)
    {
        const signed char* wm = weight + (size_t)m * K;
        int32_t* dst = out.w.data() + (size_t)(m / kNC) * out.K4 * kNC + m % kNC;
        int sum = 0;
        for (int k4 = 0; k4 < out.K4; k4++)
        {
            uint32_t q = 0;
            for (int i = 0; i < 4; i++)
            {
                const int k = 4 * k4 + i;
                const int v = k < K ? wm[k] : 0;
                sum += v;
                q |= (uint32_t)(uint8_t)(int8_t)v << (8 * i);
            }
            dst[(size_t)k4 * kNC] = (int32_t)q;
        }
        out.comp[m] = 128 * sum;
    }
}

// four rows of kTN int8 values -> kTN quads (row i in byte i), each byte + 128
static inline void interleave_quads(const signed char* const* rows, int32_t* dst)
{
    const __m128i bias = _mm_set1_epi8((char)0x80);
    for (int i = 0; i < kTN; i += 16)
    {
        const __m128i r0 = _mm_loadu_si128((const __m128i*)(rows[0] + i));
        const __m128i r1 = _mm_loadu_si128((const __m128i*)(rows[1] + i));
        const __m128i r2 = _mm_loadu_si128((const __m128i*)(rows[2] + i));
        const __m128i r3 = _mm_loadu_si128((const __m128i*)(rows[3] + i));
        const __m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
        const __m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
        __m128i* d = (__m128i*)(dst + i);
        _mm_storeu_si128(d + 0, _mm_xor_si128(_mm_unpacklo_epi16(t0, t2), bias));
        _mm_storeu_si128(d + 1, _mm_xor_si128(_mm_unpackhi_epi16(t0, t2), bias));
        _mm_storeu_si128(d + 2, _mm_xor_si128(_mm_unpacklo_epi16(t1, t3), bias));
        _mm_storeu_si128(d + 3, _mm_xor_si128(_mm_unpackhi_epi16(t1, t3), bias));
    }
}

void conv_int8_vnni_gemm(const ConvInt8Job& j, const ConvInt8VnniWeights& pw, int num_threads)
{
    const ConvGeometry& g = j.g;
    int W = 0, H = 0;
    std::vector<signed char> padded;
    conv_int8_pad_input(j, padded, &W, &H);

    const int K = pw.K, K4 = pw.K4, M = pw.M;
    // offset of k = q * maxk + tap from a pixel's window origin
    std::vector<int> koff(K);
    for (int q = 0, k = 0; q < j.in.c; q++)
        for (int ky = 0; ky < g.kernel_h; ky++)
            for (int kx = 0; kx < g.kernel_w; kx++, k++)
                koff[k] = q * W * H + ky * g.dilation_h * W + kx * g.dilation_w;

    const int outw = j.out.w;
    const int N = j.out.w * j.out.h;
    const int tiles = (N + kTN - 1) / kTN;
    const int panels = pw.panels();
    // work items: a tile with a range of panels; split the panels when
    // there are too few tiles to keep every thread busy
    int groups = 1;
    if (tiles < 4 * num_threads)
        groups = std::min(panels, (4 * num_threads + tiles - 1) / tiles);
    const int per_group = (panels + groups - 1) / groups;
    groups = (panels + per_group - 1) / per_group;
    const int items = tiles * groups;

    const signed char* src = padded.data();
    const int* ko = koff.data();
    const bool requant = j.scale_out != nullptr;
    const bool vec_finish = int8_vec_finish_ok(j.act, j.numerics);
    const int op = j.out_elempack;
    auto out_offset = [&](int m) -> size_t { return j.out.cstep * op * (size_t)(m / op) + m % op; };
    static const signed char zeros[kTN] = {};

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<int32_t> btile((size_t)K4 * kTN);
        signed char gathered[4][kTN];
        int nbase[kTN];
        int32_t sums[kL];
        alignas(64) int32_t accs[kNC * kNV * kL];
        int packed_tile = -1;
        #pragma omp for schedule(dynamic)
        for (int it = 0; it < items; it++)
        {
            const int t = it / groups, grp = it % groups;
            const int n0 = t * kTN, nn = std::min(kTN, N - n0);
            if (packed_tile != t)
            {
                // the tile's input quads [K4][kTN]
                bool contiguous = nn == kTN;
                for (int r = 0; r < kTN; r++)
                {
                    const int n = std::min(n0 + r, N - 1);
                    nbase[r] = (n / outw) * g.stride_h * W + (n % outw) * g.stride_w;
                    contiguous = contiguous && nbase[r] == nbase[0] + r;
                }
                for (int k4 = 0; k4 < K4; k4++)
                {
                    const signed char* rows[4];
                    for (int i = 0; i < 4; i++)
                    {
                        const int k = 4 * k4 + i;
                        if (k >= K)
                            rows[i] = zeros;
                        else if (contiguous)
                            rows[i] = src + ko[k] + nbase[0];
                        else
                        {
                            const signed char* s = src + ko[k];
                            for (int r = 0; r < kTN; r++)
                                gathered[i][r] = s[nbase[r]];
                            rows[i] = gathered[i];
                        }
                    }
                    interleave_quads(rows, btile.data() + (size_t)k4 * kTN);
                }
                packed_tile = t;
            }
            const int p1 = std::min(panels, (grp + 1) * per_group);
            for (int p = grp * per_group; p < p1; p++)
            {
                const int32_t* w = pw.w.data() + (size_t)p * K4 * kNC;
                const int32_t* b = btile.data();
                VecQ::T acc[kNC][kNV];
#pragma GCC unroll 16
                for (int c = 0; c < kNC; c++)
                    for (int v = 0; v < kNV; v++)
                        acc[c][v] = VecQ::zero();
                for (int k4 = 0; k4 < K4; k4++)
                {
                    const VecQ::T x0 = VecQ::load(b), x1 = VecQ::load(b + kL);
#pragma GCC unroll 16
                    for (int c = 0; c < kNC; c++)
                    {
                        const VecQ::T wc = VecQ::set1(w[c]);
                        acc[c][0] = VecQ::dp(acc[c][0], x0, wc);
                        acc[c][1] = VecQ::dp(acc[c][1], x1, wc);
                    }
                    b += kTN;
                    w += kNC;
                }
                // (spilled with constant indices only, so the loop above keeps
                // every accumulator in a register)
#pragma GCC unroll 16
                for (int c = 0; c < kNC; c++)
                    for (int v = 0; v < kNV; v++)
                        VecQ::store(accs + (c * kNV + v) * kL, acc[c][v]);
                const int m0 = p * kNC, mc = std::min(kNC, M - m0);
                for (int c = 0; c < mc; c++)
                {
                    const int m = m0 + c;
                    const VecQ::T comp = VecQ::set1(pw.comp[m]);
                    const VecIF::T si = VecIF::set1(j.scale_in[m]), bi = VecIF::set1(j.bias ? j.bias[m] : 0.f);
                    const VecIF::T so = VecIF::set1(requant ? j.scale_out[m] : 1.f);
                    const size_t om = out_offset(m);
                    for (int v = 0; v < kNV; v++)
                    {
                        const int nv0 = n0 + v * kL, cnt = std::min(kL, N - nv0);
                        if (cnt <= 0)
                            break;
                        const VecQ::T s = VecQ::sub(VecQ::load(accs + (c * kNV + v) * kL), comp);
                        if (vec_finish && (requant || op == 1))
                        {
                            const VecIF::T f = int8_vec_finish(VecI::to_float(s), si, bi, so, requant, j.numerics, j.act);
                            if (requant)
                                store_int8((signed char*)j.out.data + om + nv0, f, cnt);
                            else
                                store_f32((float*)j.out.data + om + nv0, f, cnt);
                            continue;
                        }
                        VecI::store(sums, s);
                        for (int r = 0; r < cnt; r++)
                            conv_int8_finish(sums[r], m, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                             om + (size_t)(nv0 + r) * op);
                    }
                }
            }
        }
    }
}

} // namespace KITE_ISA_NS
} // namespace kite
