#ifndef KITE_LAYER_ARM_SGEMM_ARM_H
#define KITE_LAYER_ARM_SGEMM_ARM_H

// fp32 matrix product for the ARM drivers: C[M][N] = A[M][K] B[K][N] (+ bias
// per row, then an activation), A packed once at load time. The micro-kernel
// keeps a 4-row x 8-column tile of C in eight NEON registers: per k it loads
// 8 values of B's row k and 4 of A's column k, and issues 8 fused
// multiply-adds. Compiled once per ARM level inside kite::KITE_ISA_NS.

#include "common/activation.h"
#include "mat.h"
#include "option.h"
#include "simd/simd_neon.h"

#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// A in blocks of 4 rows: block b holds A[4b + r][k] at data[(b * K + k) * 4 + r],
// rows past M zero
struct PackedA4
{
    int M = 0, K = 0;
    std::vector<float> data;
};

static inline void pack_a4(const float* a, int M, int K, PackedA4& p)
{
    p.M = M;
    p.K = K;
    const int blocks = (M + 3) / 4;
    p.data.assign((size_t)blocks * K * 4, 0.f);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            p.data[((size_t)(i / 4) * K + k) * 4 + i % 4] = a[(size_t)i * K + k];
}

// B row k at b + k * ldb; C row i at c + i * ldc
static inline void sgemm_a4(const PackedA4& A, const float* b, long ldb, int N, float* c, long ldc, const float* bias,
                            const Activation& act, const Option& opt)
{
    using namespace simd;
    typedef VF<4> V;
    const int M = A.M, K = A.K;
    const int blocks = (M + 3) / 4;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int bi = 0; bi < blocks; bi++)
    {
        const float* ap = A.data.data() + (size_t)bi * K * 4;
        const int rows = M - bi * 4 < 4 ? M - bi * 4 : 4;
        float bv[4];
        for (int r = 0; r < 4; r++)
            bv[r] = (bias && r < rows) ? bias[bi * 4 + r] : 0.f;
        int j = 0;
        for (; j + 8 <= N; j += 8)
        {
            V::T acc[4][2];
            for (int r = 0; r < 4; r++)
                acc[r][0] = acc[r][1] = V::set1(bv[r]);
            const float* bp = b + j;
            for (int k = 0; k < K; k++)
            {
                V::T b0 = V::load(bp), b1 = V::load(bp + 4);
                const float* a = ap + k * 4;
                for (int r = 0; r < 4; r++)
                {
                    V::T av = V::set1(a[r]);
                    acc[r][0] = V::fmadd(b0, av, acc[r][0]);
                    acc[r][1] = V::fmadd(b1, av, acc[r][1]);
                }
                bp += ldb;
            }
            for (int r = 0; r < rows; r++)
            {
                V::store(c + (bi * 4 + r) * ldc + j, acc[r][0]);
                V::store(c + (bi * 4 + r) * ldc + j + 4, acc[r][1]);
            }
        }
        for (; j + 4 <= N; j += 4)
        {
            V::T acc[4];
            for (int r = 0; r < 4; r++)
                acc[r] = V::set1(bv[r]);
            const float* bp = b + j;
            for (int k = 0; k < K; k++)
            {
                V::T b0 = V::load(bp);
                for (int r = 0; r < 4; r++)
                    acc[r] = V::fmadd(b0, V::set1(ap[k * 4 + r]), acc[r]);
                bp += ldb;
            }
            for (int r = 0; r < rows; r++)
                V::store(c + (bi * 4 + r) * ldc + j, acc[r]);
        }
        for (; j < N; j++)
        {
            // one column: the 4 rows in one register
            V::T acc = V::load(bv);
            const float* bp = b + j;
            for (int k = 0; k < K; k++)
            {
                acc = V::fmadd(V::load(ap + k * 4), V::set1(*bp), acc);
                bp += ldb;
            }
            float t[4];
            V::store(t, acc);
            for (int r = 0; r < rows; r++)
                c[(bi * 4 + r) * ldc + j] = t[r];
        }
        if (act.type != ACTIVATION_NONE)
        {
            for (int r = 0; r < rows; r++)
            {
                float* row = c + (bi * 4 + r) * ldc;
                for (int x = 0; x < N; x++)
                    row[x] = act(row[x]);
            }
        }
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_ARM_SGEMM_ARM_H
