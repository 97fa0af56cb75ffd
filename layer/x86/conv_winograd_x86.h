// Winograd F(m, 3) convolution (3x3 kernel, stride 1, dilation 1) for the
// x86 drivers, m = 4 (6x6 tiles) or 6 (8x8 tiles).
//
//   U = G g G^T        per (output, input) channel pair, once in create_pipeline
//   V = B^T d B        per a x a input tile (overlapping by 2) and input channel
//   M_e = V_e U_e      for each of the a*a tile positions e: a GEMM over the
//                      input channels (conv_gemm_x86.h's micro kernel)
//   Y = A^T M A        per tile and output channel: the m x m outputs
//
// The transforms run on packed elements (P lanes = P channels at once); the
// matrices are compile-time constants, so zero and unit coefficients cost
// nothing. The GEMM runs conv_gemm_forward's micro kernel on the
// transformed tiles as rows of C channels (stored straight from the
// vectors) and weights as [C][2P] panels.
//
// Included by layer/x86/*_x86.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_X86_CONV_WINOGRAD_H
#define KITE_X86_CONV_WINOGRAD_H

#include "conv_gemm_x86.h"
#include "mat.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

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
};

// out[i * os] = sum_j T[i][j] * in[j * is] on vectors
template<class V, int R, int N>
static inline void wino_apply(const float (&T)[R][N], const typename V::T* in, int is, typename V::T* out, int os)
{
#pragma GCC unroll 8
    for (int i = 0; i < R; i++)
    {
        typename V::T s = V::zero();
#pragma GCC unroll 8
        for (int j = 0; j < N; j++)
        {
            const float c = T[i][j];
            if (c == 0.f)
                continue;
            if (c == 1.f)
                s = V::add(s, in[j * is]);
            else if (c == -1.f)
                s = V::sub(s, in[j * is]);
            else
                s = V::fmadd(in[j * is], V::set1(c), s);
        }
        out[i * os] = s;
    }
}

// The transformed weights: for each tile position e, [panels][C][NR] like
// ConvPackedWeights (NR = 2P), output channels past M zero.
struct WinogradWeights
{
    int m = 0; // 0: none; 4 or 6
    int P = 0;
    int M = 0;
    int C = 0;
    std::vector<float> u;
    std::vector<float> bias; // panels * NR
    int a() const { return m + 2; }
    int nr() const { return 2 * P; }
    int panels() const { return (M + nr() - 1) / nr(); }
};

template<class F>
static inline void winograd_pack_weights_f(const float* weight, const float* bias, int M, int C, int P, WinogradWeights& out)
{
    const int a = F::a;
    out.m = F::m;
    out.P = P;
    out.M = M;
    out.C = C;
    const int NR = out.nr(), panels = out.panels();
    out.u.assign((size_t)a * a * panels * C * NR, 0.f);
    out.bias.assign((size_t)panels * NR, 0.f);
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
}

// weight layout [M][C][3][3]; m = 4 or 6
static inline void winograd_pack_weights(const float* weight, const float* bias, int M, int C, int P, int m, WinogradWeights& out)
{
    if (m == 6)
        winograd_pack_weights_f<WinogradF63>(weight, bias, M, C, P, out);
    else
        winograd_pack_weights_f<WinogradF43>(weight, bias, M, C, P, out);
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
    typedef VecF<PI> V;
    const int a = F::a;
    typename V::T d[F::a * F::a], t[F::a * F::a];
    const float* base = (const float*)in.data + in.cstep * PI * g + ((size_t)ty * F::m * in.w + tx * F::m) * PI;
    for (int y = 0; y < a; y++)
        for (int x = 0; x < a; x++)
            d[y * a + x] = V::load(base + ((size_t)y * in.w + x) * PI);
    for (int x = 0; x < a; x++)
        wino_apply<V>(F::BT, d + x, a, t + x, a); // t = B^T d
    for (int i = 0; i < a; i++)
        wino_apply<V>(F::BT, t + i * a, 1, d + i * a, 1); // d = t B
    float* dst = vbuf + (size_t)tile * C + (size_t)g * PI;
    for (int e = 0; e < a * a; e++)
        V::store(dst + e * estep, d[e]);
}

template<class F, int P, int PI>
static inline void winograd_forward_f(const Mat& in, Mat& out, const WinogradWeights& ww, const Activation& act,
                                      int num_threads)
{
    typedef VecF<P> V;
    const int MR = ConvTile<P>::MR;
    const int NR = 2 * P;
    const int a = F::a, a2 = F::a * F::a, m = F::m;
    const int C = ww.C, M = ww.M;
    const int outw = out.w, outh = out.h, po = out.elempack;
    const int tiles_x = (outw + m - 1) / m, tiles_y = (outh + m - 1) / m;
    const int ntiles = tiles_x * tiles_y;
    const int tgroups = (ntiles + MR - 1) / MR;
    const int panels = ww.panels();
    const int mpacks = (M + P - 1) / P;
    const int gpacks = C / PI;

    // V: [a2][tgroups * MR][C]; M: [mpacks][tgroups * MR][a2][P]
    const size_t estep = (size_t)tgroups * MR * C;
    std::unique_ptr<float[]> vbuf(new float[a2 * estep]);
    std::unique_ptr<float[]> mbuf(new float[(size_t)mpacks * tgroups * MR * a2 * P]);
    // tile groups per GEMM work item: their V rows stay within ~256 KiB
    const int chunk = std::max(1, std::min((int)(65536 / ((size_t)C * MR)), (tgroups + num_threads - 1) / num_threads));
    const int chunks = (tgroups + chunk - 1) / chunk;

    #pragma omp parallel num_threads(num_threads)
    {
        #pragma omp for schedule(static)
        for (int idx = 0; idx < tgroups * MR * gpacks; idx++)
        {
            const int tile = idx / gpacks, g = idx % gpacks;
            if (tile < ntiles)
            {
                winograd_input_tile<F, PI>(in, g, tile % tiles_x, tile / tiles_x, vbuf.get(), estep, C, tile);
                continue;
            }
            // the last group's missing tiles: zeros
            for (int e = 0; e < a2; e++)
                VecF<PI>::store(vbuf.get() + e * estep + (size_t)tile * C + (size_t)g * PI, VecF<PI>::zero());
        }

        #pragma omp for schedule(dynamic)
        for (int idx = 0; idx < a2 * chunks; idx++)
        {
            const int e = idx / chunks, ci = idx % chunks;
            const int tg0 = ci * chunk, tg1 = std::min(tgroups, tg0 + chunk);
            static const float zeros[2 * KITE_SIMD_MAX_N] = {0.f};
            typename V::T acc[2][ConvTile<P>::MR];
            for (int p = 0; p < panels; p++)
            {
                const float* up = ww.u.data() + (((size_t)e * panels + p) * C) * NR;
                for (int tg = tg0; tg < tg1; tg++)
                {
                    conv_micro_kernel<P, ConvTile<P>::MR>(vbuf.get() + e * estep + (size_t)tg * MR * C, up, C, acc[0], acc[1],
                                                          zeros, C, 1);
                    for (int j = 0; j < 2; j++)
                    {
                        const int mp = p * 2 + j;
                        if (mp >= mpacks)
                            break;
                        for (int r = 0; r < MR; r++)
                            V::store(mbuf.get() + (((size_t)mp * tgroups * MR + tg * MR + r) * a2 + e) * P, acc[j][r]);
                    }
                }
            }
        }

        #pragma omp for schedule(static)
        for (int idx = 0; idx < mpacks * ntiles; idx++)
        {
            const int mp = idx / ntiles, tile = idx % ntiles;
            const int tx = tile % tiles_x, ty = tile / tiles_x;
            typename V::T mv[F::a * F::a], t[F::m * F::a], y[F::m * F::m];
            const float* src = mbuf.get() + ((size_t)mp * tgroups * MR + tile) * a2 * P;
            for (int e = 0; e < a2; e++)
                mv[e] = V::load(src + (size_t)e * P);
            for (int x = 0; x < a; x++)
                wino_apply<V>(F::AT, mv + x, a, t + x, a); // t = A^T M (m x a)
            for (int i = 0; i < m; i++)
                wino_apply<V>(F::AT, t + i * a, 1, y + i * m, 1); // y = t A (m x m)
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

// in: input padded so that the tiles cover it (w >= tiles_x * m + 2, same for
// h), elempack PI >= 4; out: outw x outh x M, any elempack
template<int P>
static inline void winograd_forward(const Mat& in, Mat& out, const WinogradWeights& ww, const Activation& act,
                                    int num_threads)
{
    const int pi = in.elempack;
#define KITE_WINO_CASE(PI)                                                      \
    if (pi == PI)                                                               \
    {                                                                           \
        if (ww.m == 6)                                                          \
            winograd_forward_f<WinogradF63, P, PI>(in, out, ww, act, num_threads); \
        else                                                                    \
            winograd_forward_f<WinogradF43, P, PI>(in, out, ww, act, num_threads); \
        return;                                                                 \
    }
#if defined(__AVX512F__)
    KITE_WINO_CASE(16)
#endif
#if defined(__AVX__)
    KITE_WINO_CASE(8)
#endif
    KITE_WINO_CASE(4)
#undef KITE_WINO_CASE
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_X86_CONV_WINOGRAD_H
