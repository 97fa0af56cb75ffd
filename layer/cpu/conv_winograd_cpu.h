// Winograd F(m, 3) convolution (3x3 kernel, stride 1, dilation 1) for the
// x86 drivers, m = 2 (4x4 tiles), 4 (6x6 tiles) or 6 (8x8 tiles).
//
//   U = G g G^T        per (output, input) channel pair, once in create_pipeline
//   V = B^T d B        per a x a input tile (overlapping by 2) and input channel
//   M_e = V_e U_e      for each of the a*a tile positions e: a GEMM over the
//                      input channels (conv_gemm_cpu.h's micro kernel)
//   Y = A^T M A        per tile and output channel: the m x m outputs
//
// The transforms run on packed elements (P lanes = P channels at once); the
// matrices are compile-time constants, so zero and unit coefficients cost
// nothing. The GEMM runs conv_gemm_forward's micro kernel on the
// transformed tiles as rows of C channels (stored straight from the
// vectors) and weights as [C][2P] panels.
//
// Included by layer/cpu/*_cpu.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_CPU_CONV_WINOGRAD_H
#define KITE_CPU_CONV_WINOGRAD_H

#include "cpu/conv_gemm_cpu.h"
#include "mat.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// F(2, 3): interpolation points 0, +-1, infinity; for small maps (7x7: 16
// tiles where F(4, 3) has 4), fewest transformed weights
struct WinogradF23
{
    static const int m = 2;
    static const int a = 4;
    static constexpr float G[4][3] = {
        {1, 0, 0},
        {0.5f, 0.5f, 0.5f},
        {0.5f, -0.5f, 0.5f},
        {0, 0, 1},
    };
    // BT = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}}
    template<class V>
    static inline void bt(const typename V::T* d, int is, typename V::T* o, int os)
    {
        o[0] = V::sub(d[0], d[2 * is]);
        o[os] = V::add(d[is], d[2 * is]);
        o[2 * os] = V::sub(d[2 * is], d[is]);
        o[3 * os] = V::sub(d[is], d[3 * is]);
    }
    // AT = {{1, 1, 1, 0}, {0, 1, -1, -1}}
    template<class V>
    static inline void at(const typename V::T* d, int is, typename V::T* o, int os)
    {
        o[0] = V::add(V::add(d[0], d[is]), d[2 * is]);
        o[os] = V::sub(V::sub(d[is], d[2 * is]), d[3 * is]);
    }
};

// F(4, 3): interpolation points 0, +-1, +-2, infinity
struct WinogradF43
{
    static const int m = 4;
    static const int a = 6;
    static constexpr float BT[6][6] = {
        {4, 0, -5, 0, 1, 0},
        {0, -4, -4, 1, 1, 0},
        {0, 4, -4, -1, 1, 0},
        {0, -2, -1, 2, 1, 0},
        {0, 2, -1, -2, 1, 0},
        {0, 4, 0, -5, 0, 1},
    };
    static constexpr float G[6][3] = {
        {1.f / 4, 0, 0},
        {-1.f / 6, -1.f / 6, -1.f / 6},
        {-1.f / 6, 1.f / 6, -1.f / 6},
        {1.f / 24, 1.f / 12, 1.f / 6},
        {1.f / 24, -1.f / 12, 1.f / 6},
        {0, 0, 1},
    };
    static constexpr float AT[4][6] = {
        {1, 1, 1, 1, 1, 0},
        {0, 1, -1, 2, -2, 0},
        {0, 1, 1, 4, 4, 0},
        {0, 1, -1, 8, -8, 1},
    };

    // out[i * os] = (BT in)[i], in[j * is]: the rows' shared sums once
    template<class V>
    static inline void bt(const typename V::T* d, int is, typename V::T* o, int os)
    {
        const typename V::T d0 = d[0], d1 = d[is], d2 = d[2 * is], d3 = d[3 * is], d4 = d[4 * is], d5 = d[5 * is];
        const typename V::T a12 = V::fnmadd(V::set1(4.f), d2, d4), b12 = V::fnmadd(V::set1(4.f), d1, d3);
        const typename V::T a34 = V::sub(d4, d2), b34 = V::add(V::sub(d3, d1), V::sub(d3, d1));
        o[0] = V::fmadd(V::set1(4.f), d0, V::fnmadd(V::set1(5.f), d2, d4));
        o[os] = V::add(a12, b12);
        o[2 * os] = V::sub(a12, b12);
        o[3 * os] = V::add(a34, b34);
        o[4 * os] = V::sub(a34, b34);
        o[5 * os] = V::fmadd(V::set1(4.f), d1, V::fnmadd(V::set1(5.f), d3, d5));
    }
    // out[i * os] = (AT in)[i]
    template<class V>
    static inline void at(const typename V::T* d, int is, typename V::T* o, int os)
    {
        const typename V::T s12 = V::add(d[is], d[2 * is]), d12 = V::sub(d[is], d[2 * is]);
        const typename V::T s34 = V::add(d[3 * is], d[4 * is]), d34 = V::sub(d[3 * is], d[4 * is]);
        o[0] = V::add(V::add(d[0], s12), s34);
        o[os] = V::fmadd(V::set1(2.f), d34, d12);
        o[2 * os] = V::fmadd(V::set1(4.f), s34, s12);
        o[3 * os] = V::add(V::fmadd(V::set1(8.f), d34, d12), d[5 * is]);
    }
};

// F(6, 3): interpolation points 0, +-1, +-2, +-1/2, infinity
struct WinogradF63
{
    static const int m = 6;
    static const int a = 8;
    static constexpr float BT[8][8] = {
        {1, 0, -21.f / 4, 0, 21.f / 4, 0, -1, 0},
        {0, 1, 1, -17.f / 4, -17.f / 4, 1, 1, 0},
        {0, -1, 1, 17.f / 4, -17.f / 4, -1, 1, 0},
        {0, 1.f / 2, 1.f / 4, -5.f / 2, -5.f / 4, 2, 1, 0},
        {0, -1.f / 2, 1.f / 4, 5.f / 2, -5.f / 4, -2, 1, 0},
        {0, 2, 4, -5.f / 2, -5, 1.f / 2, 1, 0},
        {0, -2, 4, 5.f / 2, -5, -1.f / 2, 1, 0},
        {0, -1, 0, 21.f / 4, 0, -21.f / 4, 0, 1},
    };
    static constexpr float G[8][3] = {
        {1, 0, 0},
        {-2.f / 9, -2.f / 9, -2.f / 9},
        {-2.f / 9, 2.f / 9, -2.f / 9},
        {1.f / 90, 1.f / 45, 2.f / 45},
        {1.f / 90, -1.f / 45, 2.f / 45},
        {32.f / 45, 16.f / 45, 8.f / 45},
        {32.f / 45, -16.f / 45, 8.f / 45},
        {0, 0, 1},
    };
    static constexpr float AT[6][8] = {
        {1, 1, 1, 1, 1, 1, 1, 0},
        {0, 1, -1, 2, -2, 1.f / 2, -1.f / 2, 0},
        {0, 1, 1, 4, 4, 1.f / 4, 1.f / 4, 0},
        {0, 1, -1, 8, -8, 1.f / 8, -1.f / 8, 0},
        {0, 1, 1, 16, 16, 1.f / 16, 1.f / 16, 0},
        {0, 1, -1, 32, -32, 1.f / 32, -1.f / 32, 1},
    };

    template<class V>
    static inline void bt(const typename V::T* d, int is, typename V::T* o, int os)
    {
        const typename V::T d0 = d[0], d1 = d[is], d2 = d[2 * is], d3 = d[3 * is], d4 = d[4 * is], d5 = d[5 * is],
                            d6 = d[6 * is], d7 = d[7 * is];
        const typename V::T a12 = V::fnmadd(V::set1(4.25f), d4, V::add(d2, d6));
        const typename V::T b12 = V::fnmadd(V::set1(4.25f), d3, V::add(d1, d5));
        const typename V::T a34 = V::fnmadd(V::set1(1.25f), d4, V::fmadd(V::set1(0.25f), d2, d6));
        const typename V::T b34 = V::fmadd(V::set1(2.f), d5, V::fnmadd(V::set1(2.5f), d3, V::mul(V::set1(0.5f), d1)));
        const typename V::T a56 = V::fnmadd(V::set1(5.f), d4, V::fmadd(V::set1(4.f), d2, d6));
        const typename V::T b56 = V::fmadd(V::set1(0.5f), d5, V::fnmadd(V::set1(2.5f), d3, V::add(d1, d1)));
        o[0] = V::fmadd(V::set1(5.25f), V::sub(d4, d2), V::sub(d0, d6));
        o[os] = V::add(a12, b12);
        o[2 * os] = V::sub(a12, b12);
        o[3 * os] = V::add(a34, b34);
        o[4 * os] = V::sub(a34, b34);
        o[5 * os] = V::add(a56, b56);
        o[6 * os] = V::sub(a56, b56);
        o[7 * os] = V::fmadd(V::set1(5.25f), V::sub(d3, d5), V::sub(d7, d1));
    }
    template<class V>
    static inline void at(const typename V::T* d, int is, typename V::T* o, int os)
    {
        const typename V::T s12 = V::add(d[is], d[2 * is]), d12 = V::sub(d[is], d[2 * is]);
        const typename V::T s34 = V::add(d[3 * is], d[4 * is]), d34 = V::sub(d[3 * is], d[4 * is]);
        const typename V::T s56 = V::add(d[5 * is], d[6 * is]), d56 = V::sub(d[5 * is], d[6 * is]);
        o[0] = V::add(V::add(d[0], s12), V::add(s34, s56));
        o[os] = V::fmadd(V::set1(0.5f), d56, V::fmadd(V::set1(2.f), d34, d12));
        o[2 * os] = V::fmadd(V::set1(0.25f), s56, V::fmadd(V::set1(4.f), s34, s12));
        o[3 * os] = V::fmadd(V::set1(0.125f), d56, V::fmadd(V::set1(8.f), d34, d12));
        o[4 * os] = V::fmadd(V::set1(0.0625f), s56, V::fmadd(V::set1(16.f), s34, s12));
        o[5 * os] = V::add(V::fmadd(V::set1(0.03125f), d56, V::fmadd(V::set1(32.f), d34, d12)), d[7 * is]);
    }
};

// The transformed weights: for each tile position e, [panels][C][NR] like
// ConvPackedWeights (NR = 2P), output channels past M zero.
struct WinogradWeights
{
    int m = 0; // 0: none; 2, 4 or 6
    int P = 0;
    int M = 0;
    int C = 0;
    FastBuffer<float> u;
    FastBuffer<float> bias; // panels * NR
    int a() const { return m + 2; }
    int nr() const { return 2 * P; }
    int panels() const { return (M + nr() - 1) / nr(); }
};

template<class F>
static inline bool winograd_pack_weights_f(const float* weight, const float* bias, int M, int C, int P, WinogradWeights& out)
{
    const int a = F::a;
    out.m = F::m;
    out.P = P;
    out.M = M;
    out.C = C;
    const int NR = out.nr(), panels = out.panels();
    if (!out.u.assign((size_t)a * a * panels * C * NR, 0.f) || !out.bias.assign((size_t)panels * NR, 0.f))
    {
        out.u.clear();
        out.m = 0;
        return false;
    }
    for (int oc = 0; oc < M; oc++)
    {
        if (bias)
            out.bias[oc] = bias[oc];
        const int panel = oc / NR, j = oc % NR;
        for (int c = 0; c < C; c++)
        {
            const float* g = weight + ((size_t)oc * C + c) * 9;
            float tmp[F::a][3]; // G g
            for (int i = 0; i < a; i++)
                for (int x = 0; x < 3; x++)
                    tmp[i][x] = F::G[i][0] * g[x] + F::G[i][1] * g[3 + x] + F::G[i][2] * g[6 + x];
            for (int i = 0; i < a; i++)
                for (int k = 0; k < a; k++)
                {
                    const float v = tmp[i][0] * F::G[k][0] + tmp[i][1] * F::G[k][1] + tmp[i][2] * F::G[k][2];
                    const int e = i * a + k;
                    out.u[(((size_t)e * panels + panel) * C + c) * NR + j] = v;
                }
        }
    }
    return true;
}

// weight layout [M][C][3][3]; m = 2, 4 or 6. false: out of memory (out.m is
// then 0: no Winograd)
static inline bool winograd_pack_weights(const float* weight, const float* bias, int M, int C, int P, int m, WinogradWeights& out)
{
    if (m == 6)
        return winograd_pack_weights_f<WinogradF63>(weight, bias, M, C, P, out);
    if (m == 2)
        return winograd_pack_weights_f<WinogradF23>(weight, bias, M, C, P, out);
    return winograd_pack_weights_f<WinogradF43>(weight, bias, M, C, P, out);
}

// the 3x3 weights back from U = G g G^T: g = G+ U G+^T with G+ = (G^T G)^-1 G^T
// (G has full column rank), in double; exact up to the float rounding of U
// (for drivers that keep only the transformed weights in light mode)
template<class F>
static inline void winograd_unpack_weights_f(const WinogradWeights& in, float* weight)
{
    const int a = F::a;
    double n[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
        {
            n[i][j] = 0;
            for (int r = 0; r < a; r++)
                n[i][j] += (double)F::G[r][i] * F::G[r][j];
        }
    const double det = n[0][0] * (n[1][1] * n[2][2] - n[1][2] * n[2][1]) - n[0][1] * (n[1][0] * n[2][2] - n[1][2] * n[2][0])
                       + n[0][2] * (n[1][0] * n[2][1] - n[1][1] * n[2][0]);
    double inv[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
        {
            // cofactor (j, i) / det
            const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
            inv[i][j] = (n[r0][c0] * n[r1][c1] - n[r0][c1] * n[r1][c0]) / det;
        }
    double gp[3][F::a];
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < a; r++)
            gp[i][r] = inv[i][0] * F::G[r][0] + inv[i][1] * F::G[r][1] + inv[i][2] * F::G[r][2];
    const int NR = in.nr(), panels = in.panels(), C = in.C;
    for (int oc = 0; oc < in.M; oc++)
    {
        const int panel = oc / NR, j = oc % NR;
        for (int c = 0; c < C; c++)
        {
            double tmp[3][F::a]; // G+ U
            for (int x = 0; x < 3; x++)
                for (int k = 0; k < a; k++)
                {
                    double s = 0;
                    for (int i = 0; i < a; i++)
                        s += gp[x][i] * in.u[(((size_t)(i * a + k) * panels + panel) * C + c) * NR + j];
                    tmp[x][k] = s;
                }
            float* g = weight + ((size_t)oc * C + c) * 9;
            for (int x = 0; x < 3; x++)
                for (int y = 0; y < 3; y++)
                {
                    double s = 0;
                    for (int k = 0; k < a; k++)
                        s += tmp[x][k] * gp[y][k];
                    g[x * 3 + y] = (float)s;
                }
        }
    }
}

// weight layout [M][C][3][3]
static inline void winograd_unpack_weights(const WinogradWeights& in, float* weight)
{
    if (in.m == 6)
        winograd_unpack_weights_f<WinogradF63>(in, weight);
    else if (in.m == 2)
        winograd_unpack_weights_f<WinogradF23>(in, weight);
    else
        winograd_unpack_weights_f<WinogradF43>(in, weight);
}

// fewer output tiles than this: the transformed weights would be streamed for
// too little work (the im2col GEMM is used)
static const int kWinogradMinTiles = 8;

// tiles of m x m outputs covering outw x outh
static inline int winograd_tiles(int m, int outw, int outh)
{
    return ((outw + m - 1) / m) * ((outh + m - 1) / m);
}

// V for tile (tx, ty) of input pack g (PI channels) into vbuf[e][tile][C]
template<class F, int PI>
static inline void winograd_input_tile(const Mat& in, int g, int tx, int ty, float* vbuf, size_t estep, int C, int tile)
{
    typedef simd::VF<PI> V;
    const int a = F::a;
    typename V::T r[F::a], t[F::a * F::a], col[F::a];
    const float* base = (const float*)in.data + in.cstep * PI * g + ((size_t)ty * F::m * in.w + tx * F::m) * PI;
    for (int y = 0; y < a; y++)
    {
        for (int x = 0; x < a; x++)
            r[x] = V::load(base + ((size_t)y * in.w + x) * PI);
        F::template bt<V>(r, 1, t + y * a, 1); // t = d B
    }
    float* dst = vbuf + (size_t)tile * C + (size_t)g * PI;
    for (int i = 0; i < a; i++)
    {
        F::template bt<V>(t + i, a, col, 1); // column i of B^T t
        for (int j = 0; j < a; j++)
            V::store(dst + (j * a + i) * estep, col[j]);
    }
}

// Tiles [t0, t1) of the output: V = B^T d B into vbuf ([a2][groups * MR][C]),
// the a2 GEMMs into mbuf ([mpacks][groups * MR][a2][P]), Y = A^T M A + bias,
// activated, into out. Each phase split over num_threads (1: no parallel
// region).
template<class F, int P, int PI, int MR>
static inline void winograd_block(const Mat& in, Mat& out, const WinogradWeights& ww, const Activation& act, int t0, int t1,
                                  float* vbuf, float* mbuf, int num_threads)
{
    typedef simd::VF<P> V;
    const int NR = 2 * P;
    const int a = F::a, a2 = F::a * F::a, m = F::m;
    const int C = ww.C, M = ww.M;
    const int outw = out.w, outh = out.h, po = out.elempack;
    const int tiles_x = (outw + m - 1) / m;
    const int ntiles = t1 - t0;
    const int tgroups = (ntiles + MR - 1) / MR;
    const int panels = ww.panels();
    const int mpacks = (M + P - 1) / P;
    const int gpacks = C / PI;
    const size_t estep = (size_t)tgroups * MR * C;
    // tile groups per GEMM work item: their V rows stay within ~256 KiB; the
    // a2 tile positions are work items enough for the threads, so a few tile
    // groups are not split (every item would read all of its U_e)
    int chunk = std::max(1, std::min((int)(65536 / ((size_t)C * MR)), tgroups));
    if (a2 * ((tgroups + chunk - 1) / chunk) < 4 * num_threads)
        chunk = std::max(1, std::min(chunk, (tgroups + num_threads - 1) / num_threads));
    const int chunks = (tgroups + chunk - 1) / chunk;

    #pragma omp parallel num_threads(num_threads) if (num_threads > 1)
    {
        #pragma omp for schedule(static)
        for (int idx = 0; idx < tgroups * MR * gpacks; idx++)
        {
            const int tile = idx / gpacks, g = idx % gpacks;
            if (tile < ntiles)
            {
                const int gt = t0 + tile;
                winograd_input_tile<F, PI>(in, g, gt % tiles_x, gt / tiles_x, vbuf, estep, C, tile);
                continue;
            }
            // the last group's missing tiles: zeros
            for (int e = 0; e < a2; e++)
                simd::VF<PI>::store(vbuf + e * estep + (size_t)tile * C + (size_t)g * PI, simd::VF<PI>::zero());
        }

        #pragma omp for schedule(dynamic)
        for (int idx = 0; idx < a2 * chunks; idx++)
        {
            const int e = idx / chunks, ci = idx % chunks;
            const int tg0 = ci * chunk, tg1 = std::min(tgroups, tg0 + chunk);
            static const float zeros[2 * KITE_SIMD_MAX_N] = {0.f};
            typename V::T acc[2][MR];
            for (int p = 0; p < panels; p++)
            {
                const float* up = ww.u.data() + (((size_t)e * panels + p) * C) * NR;
                // a last panel with at most P of the M channels: its first
                // vector only (the second would multiply zero weights)
                const bool one = p * 2 + 1 >= mpacks;
                for (int tg = tg0; tg < tg1; tg++)
                {
                    if (one)
                        conv_group_micro_kernel<P, MR, 1, 1>(vbuf + e * estep + (size_t)tg * MR * C, 1, C, up, zeros,
                                                             acc[0], acc[1], 0, C);
                    else
                        conv_group_micro_kernel<P, MR, 1>(vbuf + e * estep + (size_t)tg * MR * C, 1, C, up, zeros, acc[0],
                                                          acc[1], 0, C);
                    for (int j = 0; j < 2; j++)
                    {
                        const int mp = p * 2 + j;
                        if (mp >= mpacks)
                            break;
                        for (int r = 0; r < MR; r++)
                            V::store(mbuf + (((size_t)mp * tgroups * MR + tg * MR + r) * a2 + e) * P, acc[j][r]);
                    }
                }
            }
        }

        #pragma omp for schedule(static)
        for (int idx = 0; idx < mpacks * ntiles; idx++)
        {
            const int mp = idx / ntiles, tile = idx % ntiles;
            const int tx = (t0 + tile) % tiles_x, ty = (t0 + tile) / tiles_x;
            typename V::T r[F::a], t[F::a * F::m], y[F::m * F::m], col[F::m];
            const float* src = mbuf + ((size_t)mp * tgroups * MR + tile) * a2 * P;
            for (int j = 0; j < a; j++)
            {
                for (int i = 0; i < a; i++)
                    r[i] = V::load(src + (size_t)(j * a + i) * P);
                F::template at<V>(r, 1, t + j * m, 1); // t = M A (a x m)
            }
            for (int q = 0; q < m; q++)
            {
                F::template at<V>(t + q, m, col, 1); // column q of A^T t
                for (int i = 0; i < m; i++)
                    y[i * m + q] = col[i];
            }
            const typename V::T b = V::load(ww.bias.data() + (size_t)mp * P);
            for (int i = 0; i < m; i++)
            {
                const int oy = ty * m + i;
                if (oy >= outh)
                    break;
                for (int k = 0; k < m; k++)
                {
                    const int ox = tx * m + k;
                    if (ox >= outw)
                        break;
                    const typename V::T v = V::add(y[i * m + k], b);
                    if (po == P)
                    {
                        store_activated<P>((float*)out.data + out.cstep * P * mp + ((size_t)oy * outw + ox) * P, v, act);
                    }
                    else
                    {
                        float lanes[P];
                        store_activated<P>(lanes, v, act);
                        store_channels<P>((float*)out.data, out.cstep, po, M, mp * P, (size_t)oy * outw + ox, lanes);
                    }
                }
            }
        }
    }
}

// The tiles in blocks whose transformed input and products (vbuf + mbuf) stay
// within ~1 MiB of L2, so the three phases pass them through the cache instead
// of memory (narrow layers on large maps: 64 -> 64 channels at 56x56 is 4
// blocks). Enough blocks for every thread: each thread runs whole blocks
// alone (no barrier between the phases); fewer (a small map): one block at a
// time with every phase split over the threads.
template<class F, int P, int PI, int MR>
static inline int winograd_forward_mr(const Mat& in, Mat& out, const WinogradWeights& ww, const Activation& act,
                                      int num_threads, Allocator* ws_allocator)
{
    const int a2 = F::a * F::a, m = F::m;
    const int ntiles = winograd_tiles(m, out.w, out.h);
    const int tgroups = (ntiles + MR - 1) / MR;
    const int mpad = (ww.M + P - 1) / P * P;
    const size_t group_bytes = (size_t)MR * a2 * (ww.C + mpad) * sizeof(float);
    // a block streams all of U (the transformed weights): blocks hold at
    // least U's size in buffers, so that U's traffic stays below theirs
    // (wide layers on small maps: one block, U read once)
    const size_t u_bytes = ww.u.size() * sizeof(float);
    const int per_block = std::max((size_t)1, std::max((size_t)(1u << 20), u_bytes) / group_bytes);
    int blocks = (tgroups + per_block - 1) / per_block;
    const bool threads_take_blocks = num_threads > 1 && tgroups >= num_threads && blocks > 1;
    if (threads_take_blocks)
        blocks = (blocks + num_threads - 1) / num_threads * num_threads;
    blocks = std::min(blocks, tgroups);
    // block b: tile groups [b * tgroups / blocks, (b + 1) * tgroups / blocks)
    const int max_groups = (tgroups + blocks - 1) / blocks;
    const size_t vsize = (size_t)a2 * max_groups * MR * ww.C, msize = (size_t)mpad * max_groups * MR * a2;
    // buffers from the workspace allocator (a pool: no fresh pages on every
    // forward)
    Mat ws;
    if (threads_take_blocks)
    {
        // a thread a contiguous range of blocks, with its own buffers
        ws.create((int)((vsize + msize) * num_threads), 4u, ws_allocator);
        if (ws.empty())
            return -100;
        #pragma omp parallel for num_threads(num_threads) schedule(static, 1)
        for (int tid = 0; tid < num_threads; tid++)
        {
            float* vbuf = (float*)ws + (vsize + msize) * tid;
            for (int b = tid * blocks / num_threads; b < (tid + 1) * blocks / num_threads; b++)
                winograd_block<F, P, PI, MR>(in, out, ww, act, std::min(ntiles, b * tgroups / blocks * MR),
                                             std::min(ntiles, (b + 1) * tgroups / blocks * MR), vbuf, vbuf + vsize, 1);
        }
        return 0;
    }
    ws.create((int)(vsize + msize), 4u, ws_allocator);
    if (ws.empty())
        return -100;
    for (int b = 0; b < blocks; b++)
        winograd_block<F, P, PI, MR>(in, out, ww, act, std::min(ntiles, b * tgroups / blocks * MR),
                                     std::min(ntiles, (b + 1) * tgroups / blocks * MR), (float*)ws, (float*)ws + vsize,
                                     num_threads);
    return 0;
}

// tile groups of ConvTile's MR rows, or of 8 where that leaves fewer empty
// rows (7x7 with F(2,3): 16 tiles, 2 groups of 8, against 24 rows in 12s)
template<class F, int P, int PI>
static inline int winograd_forward_f(const Mat& in, Mat& out, const WinogradWeights& ww, const Activation& act,
                                     int num_threads, Allocator* ws_allocator)
{
    const int MR = ConvTile<P>::MR, MR8 = MR > 8 ? 8 : MR;
    const int ntiles = winograd_tiles(F::m, out.w, out.h);
    if (MR8 != MR && (ntiles + MR - 1) / MR * MR * 10 > (ntiles + MR8 - 1) / MR8 * MR8 * 11)
        return winograd_forward_mr<F, P, PI, MR8>(in, out, ww, act, num_threads, ws_allocator);
    return winograd_forward_mr<F, P, PI, MR>(in, out, ww, act, num_threads, ws_allocator);
}

// in: input padded so that the tiles cover it (w >= tiles_x * m + 2, same for
// h), elempack PI >= 4; out: outw x outh x M, any elempack. Returns 0, or -100
// when the workspace cannot be allocated.
template<int P>
static inline int winograd_forward(const Mat& in, Mat& out, const WinogradWeights& ww, const Activation& act,
                                   int num_threads, Allocator* ws_allocator)
{
    const int pi = in.elempack;
#define KITE_WINO_CASE(PI)                                                                                  \
    if (pi == PI)                                                                                           \
    {                                                                                                       \
        if (ww.m == 6)                                                                                      \
            return winograd_forward_f<WinogradF63, P, PI>(in, out, ww, act, num_threads, ws_allocator);     \
        if (ww.m == 2)                                                                                      \
            return winograd_forward_f<WinogradF23, P, PI>(in, out, ww, act, num_threads, ws_allocator);     \
        return winograd_forward_f<WinogradF43, P, PI>(in, out, ww, act, num_threads, ws_allocator);         \
    }
#if defined(__AVX512F__)
    KITE_WINO_CASE(16)
#endif
#if defined(__AVX__)
    KITE_WINO_CASE(8)
#endif
    KITE_WINO_CASE(4)
#undef KITE_WINO_CASE
    return -1;
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_CONV_WINOGRAD_H
