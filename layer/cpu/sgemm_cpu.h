// Packed single-precision GEMM for the CPU drivers (x86 and ARM).
//
// Included by layer/cpu/*_cpu.cpp, so it is compiled once per ISA inside that
// file's namespace kite::KITE_ISA_NS with the ISA's flags: the vector width
// (4, 8 or 16 floats) and the register blocking follow from the flags.
//
//   C(m, n) = sum_k A(m, k) * B(k, n) (+ bias[m])
//
// Operands are addressed through strides, so transposed or strided matrices
// cost nothing extra: the strides are only used while packing. A is packed
// once (weights, in create_pipeline) into panels of MR rows. B is packed
// whole per call into panels of NR columns (K-major, from the workspace
// allocator); each work item then takes a group of row panels of A through
// every column panel of its range, K in blocks of KC, so A is read from memory
// once per call; each column panel's KC block stays in L1 while the group's
// row panels stream through it (see sgemm below). A packed with vec_rows (for
// a C written transposed) has panels of two vectors of rows instead, and runs
// the other way round: each row panel's block stays in L1 while the column
// panels stream past it, and its tiles are stored as whole vectors of C.
#ifndef KITE_CPU_SGEMM_H
#define KITE_CPU_SGEMM_H

#include "cpu/fast_buffer_cpu.h"
#include "log.h"
#include "mat.h"
#include "option.h"

#include "simd/simd.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// the panels' vector: the widest simd::VF this ISA level has (layer/simd)
typedef simd::VF<KITE_SIMD_MAX_N> VW;
typedef VW::T vfloat;
static const int kVecWidth = VW::N;
#if defined(__AVX512F__)
static const int kMR = 12; // 24 accumulators of 32 registers
#else
static const int kMR = 6; // KITE_SGEMM_ROWS below names 6 rows outside AVX-512
#endif

static const int kNR = 2 * kVecWidth; // columns per B panel: two vectors
static const int kKC = 256;          // K block: an A panel block stays in L1
static const int kKCV = 128;         // K block of the vector-rows layout: a 16 KB row panel block in L1

// A strided matrix view: element (r, c) at data[r * rs + c * cs].
struct MatView
{
    const float* data;
    long rs;
    long cs;
    float at(int r, int c) const { return data[r * rs + c * cs]; }
};

// The vector-rows layout (sgemm_rows below): panels of two vectors of rows,
// against NRV columns of B broadcast. x86 only: on NEON the row layout stays.
static const int kMRV = 2 * kVecWidth;
#if defined(__AVX512F__)
static const int kNRV = 14; // 28 accumulators of 32 registers
#else
static const int kNRV = 6;
#endif
#if defined(__ARM_NEON)
static const bool kVecRows = false;
#else
static const bool kVecRows = true;
#endif

// A packed into ceil(M/MR) panels; within a panel, for each k, MR values
// (rows past M are zero). MR is kMR, or kMRV with vec_rows. The storage is a
// Mat: its pages are touched only as the panels are written (a large layer's
// packing need not have the whole copy resident before the loaded weights
// can go; see InnerProduct_cpu).
struct PackedA
{
    Mat data; // panels() * mr() * K floats
    int M = 0;
    int K = 0;
    bool vec_rows = false;
    int mr() const { return vec_rows ? kMRV : kMR; }
    int panels() const { return (M + mr() - 1) / mr(); }
    const float* panel(int p) const { return (const float*)data.data + (size_t)p * mr() * K; }
};

// the shape of a packed A and its storage, not yet written; false (and M = 0:
// nothing packed) when out of memory
static inline bool pack_a_begin(int M, int K, PackedA& out, bool vec_rows = false)
{
    out.M = M;
    out.K = K;
    out.vec_rows = vec_rows && kVecRows;
    const size_t n = (size_t)out.panels() * out.mr() * K;
    out.data.release();
    if (n == 0)
        return true;
    if (n <= (size_t)INT32_MAX)
        out.data.create((int)n, (size_t)4u);
    if (out.data.empty())
    {
        KITE_LOGE("sgemm: out of memory packing a %d x %d matrix", M, K);
        out.M = 0;
        return false;
    }
    return true;
}

// panels [p0, p1) of A into out (pack_a_begin first)
static inline void pack_a_panels(const MatView& A, PackedA& out, int p0, int p1)
{
    const int mr = out.mr(), M = out.M, K = out.K;
    for (int p = p0; p < p1; p++)
    {
        float* dst = (float*)out.data.data + (size_t)p * mr * K;
        for (int k = 0; k < K; k++)
            for (int r = 0; r < mr; r++)
            {
                int m = p * mr + r;
                dst[(size_t)k * mr + r] = m < M ? A.at(m, k) : 0.f;
            }
    }
}

// vec_rows: for products whose C is stored transposed (crs == 1, the rows of
// a column adjacent): sgemm then runs vectors along M and writes whole vectors
// of C (see sgemm_rows). Ignored where kVecRows is false. Out of memory: false (and M = 0).
static inline bool pack_a(const MatView& A, int M, int K, PackedA& out, bool vec_rows = false)
{
    if (!pack_a_begin(M, K, out, vec_rows))
        return false;
    pack_a_panels(A, out, 0, out.panels());
    return true;
}

// the inverse of pack_a: A(m, k) to dst[m * rs + k * cs] (exact: packing
// only moves values); for drivers that rebuild weights they released
static inline void unpack_a(const PackedA& in, float* dst, long rs, long cs)
{
    const int mr = in.mr();
    for (int m = 0; m < in.M; m++)
    {
        const float* a = in.panel(m / mr) + m % mr;
        for (int k = 0; k < in.K; k++)
            dst[m * rs + k * cs] = a[(size_t)k * mr];
    }
}

// dst[k * ld + j] = src[j * ss + k] for j, k < 4
static inline void transpose4x4(const float* src, long ss, float* dst, long ld)
{
#if defined(__ARM_NEON) && defined(__aarch64__)
    const float32x4_t r0 = vld1q_f32(src), r1 = vld1q_f32(src + ss);
    const float32x4_t r2 = vld1q_f32(src + 2 * ss), r3 = vld1q_f32(src + 3 * ss);
    const float64x2_t t0 = vreinterpretq_f64_f32(vzip1q_f32(r0, r1)); // r0[0] r1[0] r0[1] r1[1]
    const float64x2_t t1 = vreinterpretq_f64_f32(vzip2q_f32(r0, r1)); // r0[2] r1[2] r0[3] r1[3]
    const float64x2_t t2 = vreinterpretq_f64_f32(vzip1q_f32(r2, r3));
    const float64x2_t t3 = vreinterpretq_f64_f32(vzip2q_f32(r2, r3));
    vst1q_f32(dst, vreinterpretq_f32_f64(vzip1q_f64(t0, t2)));
    vst1q_f32(dst + ld, vreinterpretq_f32_f64(vzip2q_f64(t0, t2)));
    vst1q_f32(dst + 2 * ld, vreinterpretq_f32_f64(vzip1q_f64(t1, t3)));
    vst1q_f32(dst + 3 * ld, vreinterpretq_f32_f64(vzip2q_f64(t1, t3)));
#elif !defined(__ARM_NEON)
    __m128 r0 = _mm_loadu_ps(src), r1 = _mm_loadu_ps(src + ss);
    __m128 r2 = _mm_loadu_ps(src + 2 * ss), r3 = _mm_loadu_ps(src + 3 * ss);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(dst, r0);
    _mm_storeu_ps(dst + ld, r1);
    _mm_storeu_ps(dst + 2 * ld, r2);
    _mm_storeu_ps(dst + 3 * ld, r3);
#else
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 4; j++)
            dst[k * ld + j] = src[j * ss + k];
#endif
}

// Pack B(k0..k0+kc, n0..n0+NR) into dst[kc][NR], zero-padding columns past N.
template <int NR>
static inline void pack_b_panel(const MatView& B, int k0, int kc, int n0, int N, float* dst)
{
    const int nn = std::min(NR, N - n0);
    if (B.cs == 1 && nn == NR)
    {
        for (int k = 0; k < kc; k++)
        {
            const float* src = B.data + (long)(k0 + k) * B.rs + n0;
            for (int j = 0; j < NR; j++)
                dst[k * NR + j] = src[j];
        }
        return;
    }
    if (B.rs == 1)
    {
        // B stored transposed (columns contiguous): 4 x 4 blocks transposed
        // in registers, 16 k steps (a cache line of each column) of the whole
        // panel at a time, four columns at a time: columns a multiple of 4 KB
        // apart share L1 sets, so a line is used up before the next columns
        // are read (one value at a time was ~8% of a 3072-deep InnerProduct)
        const int nn4 = nn & ~3;
        int k = 0;
        for (; k + 16 <= kc; k += 16)
            for (int j = 0; j < nn4; j += 4)
                for (int kk = k; kk < k + 16; kk += 4)
                    transpose4x4(B.data + (long)(n0 + j) * B.cs + k0 + kk, B.cs, dst + kk * NR + j, NR);
        for (; k + 4 <= kc; k += 4)
            for (int j = 0; j < nn4; j += 4)
                transpose4x4(B.data + (long)(n0 + j) * B.cs + k0 + k, B.cs, dst + k * NR + j, NR);
        for (int j = 0; j < nn; j++)
        {
            const float* src = B.data + (long)(n0 + j) * B.cs + k0;
            for (int kk = j < nn4 ? k : 0; kk < kc; kk++)
                dst[kk * NR + j] = src[kk];
        }
        for (int kk = 0; kk < kc; kk++)
            for (int j = nn; j < NR; j++)
                dst[kk * NR + j] = 0.f;
        return;
    }
    for (int k = 0; k < kc; k++)
    {
        for (int j = 0; j < nn; j++)
            dst[k * NR + j] = B.at(k0 + k, n0 + j);
        for (int j = nn; j < NR; j++)
            dst[k * NR + j] = 0.f;
    }
}

// The micro-kernel of both layouts: per step, NB values of `bc` broadcast
// against two vectors of `vc`; acc[j][0..2V) += bc[k][j] * vc[k][0..2V) for
// the first NC <= NB values (the rest of acc is left as it was). The row
// layout (MR x NR tiles) broadcasts A's rows against B's columns; the
// vector-rows layout (kMRV x kNRV) broadcasts B's columns against A's rows.
// The broadcast operand is the one streaming from L2 in both orders, so it
// is fetched 64 steps ahead; pf, pf_lines: cache lines of the next A block to
// fetch meanwhile, one a step (towards L2/L3: T0/T1 measured slower).
// The accumulators are named (an array of vectors indexed in a loop is not
// always kept in registers by the compiler).
#if defined(__AVX512F__)
#define KITE_SGEMM_LANES(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)
static const int kLanes = 14;
#else
#define KITE_SGEMM_LANES(X) X(0) X(1) X(2) X(3) X(4) X(5)
static const int kLanes = 6;
#endif
template <int NB, int NC>
static inline void micro_kernel(const float* bc, const float* vc, int kc, float* acc /* NB x 2V */, bool first,
                                const float* pf = nullptr, int pf_lines = 0)
{
    static_assert(NC <= NB && NB <= kLanes, "more broadcast values than named accumulators");
    const int V2 = 2 * kVecWidth;
#define KITE_SGEMM_DECL(j)                                                    \
    vfloat c0_##j = first || j >= NC ? VW::zero() : VW::load(acc + j * V2);      \
    vfloat c1_##j = first || j >= NC ? VW::zero() : VW::load(acc + j * V2 + kVecWidth);
#define KITE_SGEMM_FMA(j)                \
    if (j < NC)                          \
    {                                    \
        const vfloat b = VW::set1(bc[j]);  \
        c0_##j = VW::fmadd(b, v0, c0_##j); \
        c1_##j = VW::fmadd(b, v1, c1_##j); \
    }
#define KITE_SGEMM_STORE(j)                        \
    if (j < NC)                                    \
    {                                              \
        VW::store(acc + j * V2, c0_##j);             \
        VW::store(acc + j * V2 + kVecWidth, c1_##j); \
    }
    KITE_SGEMM_LANES(KITE_SGEMM_DECL)
    for (int k = 0; k < kc; k++)
    {
#if !defined(__ARM_NEON)
        _mm_prefetch((const char*)(bc + 64 * NB), _MM_HINT_T0);
        if (pf_lines > 0)
        {
            _mm_prefetch((const char*)pf, _MM_HINT_T2);
            pf += 16;
            pf_lines--;
        }
#else
        (void)pf;
        (void)pf_lines;
#endif
        const vfloat v0 = VW::load(vc);
        const vfloat v1 = VW::load(vc + kVecWidth);
        KITE_SGEMM_LANES(KITE_SGEMM_FMA)
        bc += NB;
        vc += V2;
    }
    KITE_SGEMM_LANES(KITE_SGEMM_STORE)
#undef KITE_SGEMM_DECL
#undef KITE_SGEMM_FMA
#undef KITE_SGEMM_STORE
}

// The vector-rows kernel for the nn columns of a panel: whole panels run all NRV,
// the last one an even count >= nn
static inline void micro_kernel_rows_n(int nn, const float* ap, const float* bp, int kc, float* acc, bool first,
                                       const float* pf, int pf_lines)
{
    switch (nn >= kNRV ? kNRV : (nn + 1) & ~1)
    {
    case 2: return micro_kernel<kNRV, 2>(bp, ap, kc, acc, first, pf, pf_lines);
    case 4: return micro_kernel<kNRV, 4>(bp, ap, kc, acc, first, pf, pf_lines);
#if defined(__AVX512F__)
    case 6: return micro_kernel<kNRV, 6>(bp, ap, kc, acc, first, pf, pf_lines);
    case 8: return micro_kernel<kNRV, 8>(bp, ap, kc, acc, first, pf, pf_lines);
    case 10: return micro_kernel<kNRV, 10>(bp, ap, kc, acc, first, pf, pf_lines);
    case 12: return micro_kernel<kNRV, 12>(bp, ap, kc, acc, first, pf, pf_lines);
#endif
    default: return micro_kernel<kNRV, kNRV>(bp, ap, kc, acc, first, pf, pf_lines);
    }
}

// Per-output epilogue: called with the finished value of C(m, n).
struct GemmEpilogue
{
    const float* bias = nullptr; // per row m, may be null
    float (*activation)(float v, const void* ctx) = nullptr;
    const void* activation_ctx = nullptr;
};

// Writes the finished MR x NR tile `a` (rows from m0, columns from n0; mm x nn
// of it inside C) with bias and activation.
static inline void sgemm_store_tile(const float* a, int m0, int mm, int n0, int nn, float* C, long crs, long ccs,
                                    const GemmEpilogue& ep)
{
    if (crs == 1 && ccs != 1)
    {
        // C transposed (the rows of the tile are adjacent in memory): write
        // each column's mm values together; row by row, every store went to
        // another cache line (and, for wide C, another page)
        float bias[kMR];
        for (int r = 0; r < mm; r++)
            bias[r] = ep.bias ? ep.bias[m0 + r] : 0.f;
#if defined(__AVX512F__)
        if (!ep.activation)
        {
            // one column: the mm (<= 12) rows gathered at stride NR, one masked store
            const __mmask16 mask = (__mmask16)((1u << mm) - 1);
            const __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                                   _mm512_set1_epi32(kNR));
            const __m512 vb = _mm512_maskz_loadu_ps(mask, bias);
            for (int j = 0; j < nn; j++)
            {
                const __m512 col = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), mask, idx, a + j, 4);
                _mm512_mask_storeu_ps(C + m0 + (long)(n0 + j) * ccs, mask, _mm512_add_ps(col, vb));
            }
            return;
        }
#endif
        for (int j = 0; j < nn; j++)
        {
            float* ccol = C + m0 + (long)(n0 + j) * ccs;
            if (ep.activation)
            {
                for (int r = 0; r < mm; r++)
                    ccol[r] = ep.activation(a[r * kNR + j] + bias[r], ep.activation_ctx);
            }
            else
            {
                for (int r = 0; r < mm; r++)
                    ccol[r] = a[r * kNR + j] + bias[r];
            }
        }
        return;
    }
    for (int r = 0; r < mm; r++)
    {
        const int m = m0 + r;
        const float bias = ep.bias ? ep.bias[m] : 0.f;
        const float* ar = a + r * kNR;
        float* crow = C + m * crs + (long)n0 * ccs;
        if (ep.activation)
        {
            for (int j = 0; j < nn; j++)
                crow[j * ccs] = ep.activation(ar[j] + bias, ep.activation_ctx);
        }
        else if (ccs == 1)
        {
            for (int j = 0; j < nn; j++)
                crow[j] = ar[j] + bias;
        }
        else
        {
            for (int j = 0; j < nn; j++)
                crow[j * ccs] = ar[j] + bias;
        }
    }
}

// Writes the finished kMRV x kNRV tile `a` of the vector-rows layout
// (a[j * MRV + r] = C(m0 + r, n0 + j)); with crs == 1 each column's rows are
// whole vectors of C.
static inline void sgemm_store_tile_rows(const float* a, int m0, int mm, int n0, int nn, float* C, long crs, long ccs,
                                         const GemmEpilogue& ep)
{
    if (crs == 1 && !ep.activation && mm == kMRV)
    {
        const vfloat b0 = ep.bias ? VW::load(ep.bias + m0) : VW::zero();
        const vfloat b1 = ep.bias ? VW::load(ep.bias + m0 + kVecWidth) : VW::zero();
        for (int j = 0; j < nn; j++)
        {
            float* ccol = C + (long)(n0 + j) * ccs + m0;
            VW::store(ccol, VW::add(VW::load(a + j * kMRV), b0));
            VW::store(ccol + kVecWidth, VW::add(VW::load(a + j * kMRV + kVecWidth), b1));
        }
        return;
    }
    for (int j = 0; j < nn; j++)
    {
        float* ccol = C + (long)(n0 + j) * ccs + (long)m0 * crs;
        for (int r = 0; r < mm; r++)
        {
            const float v = a[j * kMRV + r] + (ep.bias ? ep.bias[m0 + r] : 0.f);
            ccol[r * crs] = ep.activation ? ep.activation(v, ep.activation_ctx) : v;
        }
    }
}

// C(m, n) at C[m * crs + n * ccs]. B is packed whole first (column panels
// split over the threads), then the work items are (group of kMG row panels,
// range of column panels): for each K block, each column panel's block (NR x
// KC: 32 KB with AVX-512) stays in L1 while the group's row panels stream
// through it from L2, the partial sums staying in a small per-thread buffer.
// (Row panel in L1 and the column panels streamed was ~70% of the FMA peak:
// a column panel step reads 2 vectors from L2, a row panel step 12 floats.)
// Returns 0, or -100 when the workspace cannot be allocated.
static const int kMG = 8; // row panels per work item: 96 KB of A per K block

// The vector-rows layout (A.vec_rows) runs the same packing and work items
// with kMRV x kNRV tiles, K blocks of kKCV and the A-stationary order below.
// bpre: B already packed in this layout (PackedB below), so not packed again.
template <bool VR>
static inline int sgemm_blocked(const PackedA& A, const MatView& B, int N, float* C, long crs, long ccs,
                                const GemmEpilogue& ep, const Option& opt, const float* bpre = nullptr)
{
    constexpr int MR = VR ? kMRV : kMR;
    constexpr int NR = VR ? kNRV : kNR;
    const int M = A.M, K = A.K;
    const int npanels = (N + NR - 1) / NR;
    const int mpanels = A.panels();
    const int mgroups = (mpanels + kMG - 1) / kMG;
    const int Kp = std::max(K, 1);
    Mat bpack;
    if (!bpre)
    {
        bpack.create((int)std::min<size_t>((size_t)npanels * Kp * NR, (size_t)0x7fffffff), 4u, opt.workspace_allocator);
        if (bpack.empty() || (size_t)npanels * Kp * NR > (size_t)0x7fffffff)
        {
            KITE_LOGE("sgemm: cannot allocate %zu bytes of packed operand", (size_t)npanels * Kp * NR * 4);
            return -100;
        }
    }
    float* bp = bpre ? (float*)bpre : (float*)bpack;
    // split the column panels when there are too few row panel groups to keep threads busy
    int ngroups = 1;
    while (mgroups * ngroups < opt.num_threads * 4 && ngroups < npanels)
        ngroups *= 2;
    ngroups = std::min(ngroups, npanels);
    const int per_group = (npanels + ngroups - 1) / ngroups;
    // no empty column groups (11 panels in 8 groups of 2 left two empty: a
    // quarter of the work items idle, unevenly spread over the threads)
    ngroups = (npanels + per_group - 1) / per_group;
    const int tasks = mgroups * ngroups;
    const size_t tile = (size_t)MR * NR;

    #pragma omp parallel num_threads(opt.num_threads)
    {
        if (!bpre)
        {
            #pragma omp for schedule(static)
            for (int np = 0; np < npanels; np++)
                for (int k0 = 0; k0 < K; k0 += kKC)
                    pack_b_panel<NR>(B, k0, std::min(kKC, K - k0), np * NR, N, bp + ((size_t)np * Kp + k0) * NR);
        }

        std::vector<float> acc((size_t)per_group * kMG * tile);
        // the partial sums of tile (mp, np) of this work item
        auto tile_at = [&](int np0, int mp0, int np, int mp) {
            return acc.data() + ((size_t)(np - np0) * kMG + (mp - mp0)) * tile;
        };
        #pragma omp for schedule(static)
        for (int t = 0; t < tasks; t++)
        {
            const int mg = t / ngroups;
            const int ng = t % ngroups;
            const int mp0 = mg * kMG;
            const int mp1 = std::min(mpanels, mp0 + kMG);
            const int np0 = ng * per_group;
            const int np1 = std::min(npanels, np0 + per_group);
            if (K <= 0)
                std::fill(acc.begin(), acc.end(), 0.f);
            if (VR)
            {
                // A-stationary: each row panel's K block (16 KB) stays in L1
                // while the column panels' blocks (NRV floats a step) stream
                // from L2 past it: ~95% of the FMA peak against ~60-85% with
                // the row panels streaming (two vectors a step). A itself comes
                // from memory once per call (one core reads ~6 GB/s), so every
                // pass fetches a part of the next block in this order
                for (int k0 = 0; k0 < K; k0 += kKCV)
                {
                    const int kc = std::min(kKCV, K - k0);
                    for (int mp = mp0; mp < mp1; mp++)
                    {
                        const float* next = nullptr;
                        int next_k = 0;
                        if (mp + 1 < mp1)
                            next = A.panel(mp + 1) + (size_t)k0 * MR, next_k = kc;
                        else if (k0 + kKCV < K)
                            next = A.panel(mp0) + (size_t)(k0 + kKCV) * MR, next_k = std::min(kKCV, K - k0 - kKCV);
                        else if (ngroups == 1 && mp1 < mpanels)
                            next = A.panel(mp1), next_k = std::min(kKCV, K);
                        const int lines = next_k * MR / 16, parts = np1 - np0;
                        for (int np = np0; np < np1; np++)
                        {
                            const int l0 = lines * (np - np0) / parts, l1 = lines * (np - np0 + 1) / parts;
                            micro_kernel_rows_n(N - np * NR, A.panel(mp) + (size_t)k0 * MR, bp + ((size_t)np * Kp + k0) * NR,
                                                kc, tile_at(np0, mp0, np, mp), k0 == 0,
                                                next ? next + (size_t)l0 * 16 : nullptr, l1 - l0);
                        }
                    }
                }
            }
            else
            {
                for (int k0 = 0; k0 < K; k0 += kKC)
                {
                    const int kc = std::min(kKC, K - k0);
                    for (int np = np0; np < np1; np++)
                    {
                        const float* bpanel = bp + ((size_t)np * Kp + k0) * NR;
                        for (int mp = mp0; mp < mp1; mp++)
                            micro_kernel<kMR, kMR>(A.panel(mp) + (size_t)k0 * MR, bpanel, kc, tile_at(np0, mp0, np, mp),
                                                   k0 == 0);
                    }
                }
            }
            for (int np = np0; np < np1; np++)
                for (int mp = mp0; mp < mp1; mp++)
                {
                    const float* t = tile_at(np0, mp0, np, mp);
                    const int mm = std::min(MR, M - mp * MR), nn = std::min(NR, N - np * NR);
                    if (VR)
                        sgemm_store_tile_rows(t, mp * MR, mm, np * NR, nn, C, crs, ccs, ep);
                    else
                        sgemm_store_tile(t, mp * MR, mm, np * NR, nn, C, crs, ccs, ep);
                }
        }
    }
    return 0;
}

static inline int sgemm(const PackedA& A, const MatView& B, int N, float* C, long crs, long ccs,
                        const GemmEpilogue& ep, const Option& opt)
{
    if (A.M <= 0 || N <= 0)
        return 0;
    return A.vec_rows ? sgemm_blocked<true>(A, B, N, C, crs, ccs, ep, opt)
                      : sgemm_blocked<false>(A, B, N, C, crs, ccs, ep, opt);
}

// B packed whole once for several products with the same B and K: the row
// blocks of one weight matrix converted (fp16 weights) or packed one block at
// a time (InnerProduct_cpu's forward_f16). vec_rows: for A packed with
// vec_rows (the column panels' width follows the layout).
struct PackedB
{
    Mat data;
    int N = 0, K = 0;
    bool vec_rows = false;
};

// Out of memory: -100 (and out.N = 0).
static inline int pack_b(const MatView& B, int K, int N, bool vec_rows, PackedB& out, const Option& opt)
{
    vec_rows = vec_rows && kVecRows;
    const int NR = vec_rows ? kNRV : kNR;
    const int npanels = (N + NR - 1) / NR, Kp = std::max(K, 1);
    out.N = 0;
    const size_t n = (size_t)npanels * Kp * NR;
    if (n > (size_t)0x7fffffff)
        return -100;
    out.data.create((int)n, 4u, opt.workspace_allocator);
    if (out.data.empty())
    {
        KITE_LOGE("sgemm: cannot allocate %zu bytes of packed operand", n * 4);
        return -100;
    }
    float* bp = out.data;
    #pragma omp parallel for num_threads(opt.num_threads) schedule(static)
    for (int np = 0; np < npanels; np++)
        for (int k0 = 0; k0 < K; k0 += kKC)
        {
            if (vec_rows)
                pack_b_panel<kNRV>(B, k0, std::min(kKC, K - k0), np * kNRV, N, bp + ((size_t)np * Kp + k0) * kNRV);
            else
                pack_b_panel<kNR>(B, k0, std::min(kKC, K - k0), np * kNR, N, bp + ((size_t)np * Kp + k0) * kNR);
        }
    out.N = N;
    out.K = K;
    out.vec_rows = vec_rows;
    return 0;
}

// sgemm with B packed by pack_b (A.K == B.K, A.vec_rows == B.vec_rows)
static inline int sgemm(const PackedA& A, const PackedB& B, float* C, long crs, long ccs, const GemmEpilogue& ep,
                        const Option& opt)
{
    if (A.M <= 0 || B.N <= 0)
        return 0;
    if (A.K != B.K || (A.vec_rows && kVecRows) != B.vec_rows)
    {
        KITE_LOGE("sgemm: packed operands do not match (K %d vs %d)", A.K, B.K);
        return -1;
    }
    const MatView none{nullptr, 0, 0};
    return B.vec_rows ? sgemm_blocked<true>(A, none, B.N, C, crs, ccs, ep, opt, B.data)
                      : sgemm_blocked<false>(A, none, B.N, C, crs, ccs, ep, opt, B.data);
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_SGEMM_H
