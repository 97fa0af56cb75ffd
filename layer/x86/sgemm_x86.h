// Packed single-precision GEMM for the x86 drivers.
//
// Included by layer/x86/*_x86.cpp, so it is compiled once per ISA inside that
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
// row panels stream through it (see sgemm below).
#ifndef KITE_X86_SGEMM_H
#define KITE_X86_SGEMM_H

#include "log.h"
#include "mat.h"
#include "option.h"

#if defined(__ARM_NEON)
#include <arm_neon.h> // layer/arm drivers include this file too (NEON branch below)
#else
#include <immintrin.h>
#endif

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

#if defined(__ARM_NEON)
typedef float32x4_t vfloat;
static const int kVecWidth = 4;
static const int kMR = 6; // KITE_SGEMM_ROWS below names 6 rows outside AVX-512
static inline vfloat v_load(const float* p) { return vld1q_f32(p); }
static inline void v_store(float* p, vfloat v) { vst1q_f32(p, v); }
static inline vfloat v_set1(float v) { return vdupq_n_f32(v); }
static inline vfloat v_zero() { return vdupq_n_f32(0.f); }
#if defined(__aarch64__)
static inline vfloat v_fmadd(vfloat a, vfloat b, vfloat c) { return vfmaq_f32(c, a, b); }
#else
static inline vfloat v_fmadd(vfloat a, vfloat b, vfloat c) { return vmlaq_f32(c, a, b); }
#endif
static inline vfloat v_add(vfloat a, vfloat b) { return vaddq_f32(a, b); }
#elif defined(__AVX512F__)
typedef __m512 vfloat;
static const int kVecWidth = 16;
static const int kMR = 12; // 24 accumulators of 32 registers
static inline vfloat v_load(const float* p) { return _mm512_loadu_ps(p); }
static inline void v_store(float* p, vfloat v) { _mm512_storeu_ps(p, v); }
static inline vfloat v_set1(float v) { return _mm512_set1_ps(v); }
static inline vfloat v_zero() { return _mm512_setzero_ps(); }
static inline vfloat v_fmadd(vfloat a, vfloat b, vfloat c) { return _mm512_fmadd_ps(a, b, c); }
static inline vfloat v_add(vfloat a, vfloat b) { return _mm512_add_ps(a, b); }
#elif defined(__AVX__)
typedef __m256 vfloat;
static const int kVecWidth = 8;
static const int kMR = 6;
static inline vfloat v_load(const float* p) { return _mm256_loadu_ps(p); }
static inline void v_store(float* p, vfloat v) { _mm256_storeu_ps(p, v); }
static inline vfloat v_set1(float v) { return _mm256_set1_ps(v); }
static inline vfloat v_zero() { return _mm256_setzero_ps(); }
#if defined(__FMA__)
static inline vfloat v_fmadd(vfloat a, vfloat b, vfloat c) { return _mm256_fmadd_ps(a, b, c); }
#else
static inline vfloat v_fmadd(vfloat a, vfloat b, vfloat c) { return _mm256_add_ps(_mm256_mul_ps(a, b), c); }
#endif
static inline vfloat v_add(vfloat a, vfloat b) { return _mm256_add_ps(a, b); }
#else
typedef __m128 vfloat;
static const int kVecWidth = 4;
static const int kMR = 6;
static inline vfloat v_load(const float* p) { return _mm_loadu_ps(p); }
static inline void v_store(float* p, vfloat v) { _mm_storeu_ps(p, v); }
static inline vfloat v_set1(float v) { return _mm_set1_ps(v); }
static inline vfloat v_zero() { return _mm_setzero_ps(); }
static inline vfloat v_fmadd(vfloat a, vfloat b, vfloat c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
static inline vfloat v_add(vfloat a, vfloat b) { return _mm_add_ps(a, b); }
#endif

static const int kNR = 2 * kVecWidth; // columns per B panel: two vectors
static const int kKC = 256;          // K block: an A panel block stays in L1

// A strided matrix view: element (r, c) at data[r * rs + c * cs].
struct MatView
{
    const float* data;
    long rs;
    long cs;
    float at(int r, int c) const { return data[r * rs + c * cs]; }
};

// A packed into ceil(M/MR) panels; within a panel, for each k, MR values
// (rows past M are zero).
struct PackedA
{
    std::vector<float> data;
    int M = 0;
    int K = 0;
    int panels() const { return (M + kMR - 1) / kMR; }
    const float* panel(int p) const { return data.data() + (size_t)p * kMR * K; }
};

static inline void pack_a(const MatView& A, int M, int K, PackedA& out)
{
    out.M = M;
    out.K = K;
    out.data.assign((size_t)out.panels() * kMR * K, 0.f);
    for (int p = 0; p < out.panels(); p++)
    {
        float* dst = out.data.data() + (size_t)p * kMR * K;
        for (int k = 0; k < K; k++)
            for (int r = 0; r < kMR; r++)
            {
                int m = p * kMR + r;
                dst[(size_t)k * kMR + r] = m < M ? A.at(m, k) : 0.f;
            }
    }
}

// Pack B(k0..k0+kc, n0..n0+NR) into dst[kc][NR], zero-padding columns past N.
static inline void pack_b_panel(const MatView& B, int k0, int kc, int n0, int N, float* dst)
{
    const int nn = std::min(kNR, N - n0);
    if (B.cs == 1 && nn == kNR)
    {
        for (int k = 0; k < kc; k++)
        {
            const float* src = B.data + (long)(k0 + k) * B.rs + n0;
            for (int j = 0; j < kNR; j++)
                dst[k * kNR + j] = src[j];
        }
        return;
    }
    if (B.rs == 1)
    {
        // B stored transposed (columns contiguous): read each column in order
        for (int j = 0; j < nn; j++)
        {
            const float* src = B.data + (long)(n0 + j) * B.cs + k0;
            for (int k = 0; k < kc; k++)
                dst[k * kNR + j] = src[k];
        }
        for (int k = 0; k < kc; k++)
            for (int j = nn; j < kNR; j++)
                dst[k * kNR + j] = 0.f;
        return;
    }
    for (int k = 0; k < kc; k++)
    {
        for (int j = 0; j < nn; j++)
            dst[k * kNR + j] = B.at(k0 + k, n0 + j);
        for (int j = nn; j < kNR; j++)
            dst[k * kNR + j] = 0.f;
    }
}

// MR x NR block over kc steps: acc += Apanel[kc][MR] * Bpanel[kc][NR].
// The accumulators are named rows (an array of vectors indexed in a loop
// is not always kept in registers by the compiler).
#define KITE_SGEMM_ROWS_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#if defined(__AVX512F__)
#define KITE_SGEMM_ROWS(X) KITE_SGEMM_ROWS_8(X) X(8) X(9) X(10) X(11)
#else
#define KITE_SGEMM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)
#endif
static inline void micro_kernel(const float* ap, const float* bp, int kc, float* acc /* MR*NR */, bool first)
{
#define KITE_SGEMM_DECL(r) \
    vfloat c0_##r = first ? v_zero() : v_load(acc + r * kNR); \
    vfloat c1_##r = first ? v_zero() : v_load(acc + r * kNR + kVecWidth);
#define KITE_SGEMM_FMA(r)               \
    {                                   \
        const vfloat a = v_set1(ap[r]); \
        c0_##r = v_fmadd(a, b0, c0_##r);  \
        c1_##r = v_fmadd(a, b1, c1_##r);  \
    }
#define KITE_SGEMM_STORE(r)                 \
    v_store(acc + r * kNR, c0_##r); \
    v_store(acc + r * kNR + kVecWidth, c1_##r);
    KITE_SGEMM_ROWS(KITE_SGEMM_DECL)
    for (int k = 0; k < kc; k++)
    {
#if !defined(__ARM_NEON)
        // the row panels stream from L2 (from memory on the first column
        // panel): ~5% faster with A fetched 64 steps ahead
        _mm_prefetch((const char*)(ap + 64 * kMR), _MM_HINT_T0);
#endif
        const vfloat b0 = v_load(bp);
        const vfloat b1 = v_load(bp + kVecWidth);
        KITE_SGEMM_ROWS(KITE_SGEMM_FMA)
        ap += kMR;
        bp += kNR;
    }
    KITE_SGEMM_ROWS(KITE_SGEMM_STORE)
#undef KITE_SGEMM_DECL
#undef KITE_SGEMM_FMA
#undef KITE_SGEMM_STORE
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

// C(m, n) at C[m * crs + n * ccs]. B is packed whole first (column panels
// split over the threads), then the work items are (group of kMG row panels,
// range of column panels): for each K block, each column panel's block (NR x
// KC: 32 KB with AVX-512) stays in L1 while the group's row panels stream
// through it from L2, the partial sums staying in a small per-thread buffer.
// (Row panel in L1 and the column panels streamed was ~70% of the FMA peak:
// a column panel step reads 2 vectors from L2, a row panel step 12 floats.)
// Returns 0, or -100 when the workspace cannot be allocated.
static const int kMG = 8; // row panels per work item: 96 KB of A per K block

static inline int sgemm(const PackedA& A, const MatView& B, int N, float* C, long crs, long ccs,
                        const GemmEpilogue& ep, const Option& opt)
{
    const int M = A.M, K = A.K;
    if (M <= 0 || N <= 0)
        return 0;
    const int npanels = (N + kNR - 1) / kNR;
    const int mpanels = A.panels();
    const int mgroups = (mpanels + kMG - 1) / kMG;
    const int Kp = std::max(K, 1);
    Mat bpack;
    bpack.create((int)std::min<size_t>((size_t)npanels * Kp * kNR, (size_t)0x7fffffff), 4u, opt.workspace_allocator);
    if (bpack.empty() || (size_t)npanels * Kp * kNR > (size_t)0x7fffffff)
    {
        KITE_LOGE("sgemm: cannot allocate %zu bytes of packed operand", (size_t)npanels * Kp * kNR * 4);
        return -100;
    }
    float* bp = bpack;
    // split the column panels when there are too few row panel groups to keep threads busy
    int ngroups = 1;
    while (mgroups * ngroups < opt.num_threads * 4 && ngroups < npanels)
        ngroups *= 2;
    ngroups = std::min(ngroups, npanels);
    const int per_group = (npanels + ngroups - 1) / ngroups;
    const int tasks = mgroups * ngroups;
    const size_t tile = (size_t)kMR * kNR;

    #pragma omp parallel num_threads(opt.num_threads)
    {
        #pragma omp for schedule(static)
        for (int np = 0; np < npanels; np++)
            for (int k0 = 0; k0 < K; k0 += kKC)
                pack_b_panel(B, k0, std::min(kKC, K - k0), np * kNR, N, bp + ((size_t)np * Kp + k0) * kNR);

        std::vector<float> acc((size_t)per_group * kMG * tile);
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
            for (int k0 = 0; k0 < K; k0 += kKC)
            {
                const int kc = std::min(kKC, K - k0);
                for (int np = np0; np < np1; np++)
                {
                    const float* bpanel = bp + ((size_t)np * Kp + k0) * kNR;
                    for (int mp = mp0; mp < mp1; mp++)
                        micro_kernel(A.panel(mp) + (size_t)k0 * kMR, bpanel, kc,
                                     acc.data() + ((size_t)(np - np0) * kMG + (mp - mp0)) * tile, k0 == 0);
                }
            }
            for (int np = np0; np < np1; np++)
                for (int mp = mp0; mp < mp1; mp++)
                    sgemm_store_tile(acc.data() + ((size_t)(np - np0) * kMG + (mp - mp0)) * tile, mp * kMR,
                                     std::min(kMR, M - mp * kMR), np * kNR, std::min(kNR, N - np * kNR), C, crs, ccs,
                                     ep);
        }
    }
    return 0;
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_X86_SGEMM_H
