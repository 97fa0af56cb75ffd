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
// once (weights, in create_pipeline) into panels of MR rows; B is packed per
// thread into panels of NR columns, K in blocks of KC.
#ifndef KITE_X86_SGEMM_H
#define KITE_X86_SGEMM_H

#include "mat.h"
#include "option.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

#if defined(__AVX512F__)
typedef __m512 vfloat;
static const int kVecWidth = 16;
static const int kMR = 8;
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
static const int kKC = 256;          // K block: a B panel block stays in L1/L2

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

// MR x NR block over kc steps: acc += Apanel[kc][MR] * Bpanel[kc][NR]
static inline void micro_kernel(const float* ap, const float* bp, int kc, float* acc /* MR*NR */, bool first)
{
    vfloat c0[kMR], c1[kMR];
    for (int r = 0; r < kMR; r++)
    {
        c0[r] = first ? v_zero() : v_load(acc + r * kNR);
        c1[r] = first ? v_zero() : v_load(acc + r * kNR + kVecWidth);
    }
    for (int k = 0; k < kc; k++)
    {
        vfloat b0 = v_load(bp);
        vfloat b1 = v_load(bp + kVecWidth);
#pragma GCC unroll 8
        for (int r = 0; r < kMR; r++)
        {
            vfloat a = v_set1(ap[r]);
            c0[r] = v_fmadd(a, b0, c0[r]);
            c1[r] = v_fmadd(a, b1, c1[r]);
        }
        ap += kMR;
        bp += kNR;
    }
    for (int r = 0; r < kMR; r++)
    {
        v_store(acc + r * kNR, c0[r]);
        v_store(acc + r * kNR + kVecWidth, c1[r]);
    }
}

// Per-output epilogue: called with the finished value of C(m, n).
struct GemmEpilogue
{
    const float* bias = nullptr; // per row m, may be null
    float (*activation)(float v, const void* ctx) = nullptr;
    const void* activation_ctx = nullptr;
};

// C(m, n) at C[m * crs + n * ccs]. Work items are (column panel, group of
// row panels); each packs its B block once per K block and runs every row
// panel of its group against it, keeping the partial sums in a small buffer.
static inline void sgemm(const PackedA& A, const MatView& B, int N, float* C, long crs, long ccs,
                         const GemmEpilogue& ep, const Option& opt)
{
    const int M = A.M, K = A.K;
    const int npanels = (N + kNR - 1) / kNR;
    const int mpanels = A.panels();
    // split the rows when there are too few column panels to keep threads busy
    int mgroups = 1;
    while (npanels * mgroups < opt.num_threads * 4 && mgroups < mpanels)
        mgroups *= 2;
    mgroups = std::min(mgroups, mpanels);
    const int per_group = (mpanels + mgroups - 1) / mgroups;
    const int tasks = npanels * mgroups;

    #pragma omp parallel num_threads(opt.num_threads)
    {
        std::vector<float> bpack((size_t)kKC * kNR);
        std::vector<float> acc((size_t)per_group * kMR * kNR);
        #pragma omp for schedule(static)
        for (int t = 0; t < tasks; t++)
        {
            const int np = t / mgroups;
            const int mg = t % mgroups;
            const int n0 = np * kNR;
            const int mp0 = mg * per_group;
            const int mp1 = std::min(mpanels, mp0 + per_group);
            if (K <= 0)
                std::fill(acc.begin(), acc.end(), 0.f);
            for (int k0 = 0; k0 < K; k0 += kKC)
            {
                const int kc = std::min(kKC, K - k0);
                pack_b_panel(B, k0, kc, n0, N, bpack.data());
                for (int mp = mp0; mp < mp1; mp++)
                    micro_kernel(A.panel(mp) + (size_t)k0 * kMR, bpack.data(), kc, acc.data() + (size_t)(mp - mp0) * kMR * kNR, k0 == 0);
            }
            const int nn = std::min(kNR, N - n0);
            for (int mp = mp0; mp < mp1; mp++)
            {
                const float* a = acc.data() + (size_t)(mp - mp0) * kMR * kNR;
                const int mm = std::min(kMR, M - mp * kMR);
                for (int r = 0; r < mm; r++)
                {
                    const int m = mp * kMR + r;
                    const float bias = ep.bias ? ep.bias[m] : 0.f;
                    float* crow = C + m * crs + (long)n0 * ccs;
                    for (int j = 0; j < nn; j++)
                    {
                        float v = a[r * kNR + j] + bias;
                        if (ep.activation)
                            v = ep.activation(v, ep.activation_ctx);
                        crow[j * ccs] = v;
                    }
                }
            }
        }
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_X86_SGEMM_H
