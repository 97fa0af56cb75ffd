// Convolution as a packed GEMM with implicit im2col, for the x86 drivers.
//
//   out(n, m) = sum_k col(n, k) * W(k, m) + bias(m),  n = output pixel,
//   m = output channel, k = (tap, input channel)
//
// The vectors run along the output channels, so an accumulator is exactly one
// packed output element (elempack P): results are stored without shuffles.
// The weights are packed once (create_pipeline) into panels of NR = 2P
// channels, [K][NR] each. The input is never materialised as an im2col
// matrix: each thread packs MR output pixels at a time ([K][MR], or whole
// packed elements [tap][group][MR][PI] from a packed input; read
// straight from the padded input of any elempack) and runs every weight panel
// against a chunk of such tiles, chunk sized to stay in L2.
//
// Included by layer/cpu/*_cpu.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_CPU_CONV_GEMM_H
#define KITE_CPU_CONV_GEMM_H

#include "cpu/conv_vec_cpu.h"
#include "cpu/fast_buffer_cpu.h"
#include "mat.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// output pixels per micro tile for vector width P: AVX-512's 32 registers
// hold a 12 x 2-vector accumulator tile (each weight load serves 12 FMAs per
// vector), 16 registers a 6 x 2 one
template<int P>
struct ConvTile
{
    static const int MR = P == 16 ? 12 : 6;
};

// the im2col GEMM's tile: 12 rows wherever there are 32 registers (AVX-512,
// narrower vectors too: a first layer's 8 or 4 output channels), else 6
template<int P>
struct ConvGemmTile
{
    static const int MR = kMaxPack == 16 ? 12 : 6;
};

// The weights of one convolution packed for output elempack P.
struct ConvPackedWeights
{
    int P = 0;   // vector width / output elempack it was packed for
    int M = 0;   // output channels
    int K = 0;   // maxk * input channels
    int C = 0;   // input channels
    int maxk = 0;
    FastBuffer<float> w;    // [ceil(M/NR)][K][NR], k = tap * C + q
    FastBuffer<float> bias; // ceil(M/NR)*NR, zero padded

    int nr() const { return 2 * P; }
    int panels() const { return (M + nr() - 1) / nr(); }
};

// weight layout [M][C][maxk] (ncnn's); bias may be null. false: out of
// memory (out.M is then 0: nothing packed)
static inline bool conv_pack_weights(const float* weight, const float* bias, int M, int C, int maxk, int P,
                                     ConvPackedWeights& out)
{
    out.P = P;
    out.M = M;
    out.C = C;
    out.maxk = maxk;
    out.K = C * maxk;
    const int NR = out.nr();
    if (!out.w.assign((size_t)out.panels() * out.K * NR, 0.f) || !out.bias.assign((size_t)out.panels() * NR, 0.f))
    {
        out.w.clear();
        out.M = 0;
        return false;
    }
    for (int m = 0; m < M; m++)
    {
        const int panel = m / NR, j = m % NR;
        float* dst = out.w.data() + (size_t)panel * out.K * NR + j;
        for (int tap = 0; tap < maxk; tap++)
            for (int q = 0; q < C; q++)
                dst[((size_t)tap * C + q) * NR] = weight[((size_t)m * C + q) * maxk + tap];
        if (bias)
            out.bias[m] = bias[m];
    }
    return true;
}

// the inverse of conv_pack_weights: weight [M][C][maxk] (the packing only
// moves values, so this is exact)
static inline void conv_unpack_weights(const ConvPackedWeights& in, float* weight)
{
    const int NR = in.nr();
    for (int m = 0; m < in.M; m++)
    {
        const float* src = in.w.data() + (size_t)(m / NR) * in.K * NR + m % NR;
        for (int tap = 0; tap < in.maxk; tap++)
            for (int q = 0; q < in.C; q++)
                weight[((size_t)m * in.C + q) * in.maxk + tap] = src[((size_t)tap * in.C + q) * NR];
    }
}

struct ConvGemmGeometry
{
    int kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h;
    // where the unpadded input lies in the padded one, its padding zeros:
    // taps that read only padding for every pixel of a tile add nothing and
    // are skipped (conv_gemm_tap_masks); src_w 0: no skipping
    int pad_left = 0, pad_top = 0, src_w = 0, src_h = 0;
};

// Per tile of MR output pixels, the taps (bit ky * kernel_w + kx) that read
// at least one input value rather than padding zeros. Empty (nothing to
// skip, or no zero padding known, or more than 64 taps) unless skipping
// saves at least a quarter of the products: a dilated convolution on a small
// map (deeplabv3's ASPP, dilation 12 on 14x14: 82% of the taps read zeros),
// where the GEMM then runs each tile on its taps alone.
static inline std::vector<uint64_t> conv_gemm_tap_masks(const ConvGemmGeometry& g, int outw, int outh, int MR)
{
    std::vector<uint64_t> masks;
    const int maxk = g.kernel_w * g.kernel_h;
    if (g.src_w <= 0 || g.src_h <= 0 || maxk > 64 || maxk < 2)
        return masks;
    // the taps each output column / row reads inside the input
    std::vector<uint64_t> colv(outw), rowv(outh);
    for (int ox = 0; ox < outw; ox++)
        for (int kx = 0; kx < g.kernel_w; kx++)
        {
            const int px = ox * g.stride_w + kx * g.dilation_w;
            if (px >= g.pad_left && px < g.pad_left + g.src_w)
                for (int ky = 0; ky < g.kernel_h; ky++)
                    colv[ox] |= 1ull << (ky * g.kernel_w + kx);
        }
    for (int oy = 0; oy < outh; oy++)
        for (int ky = 0; ky < g.kernel_h; ky++)
        {
            const int py = oy * g.stride_h + ky * g.dilation_h;
            if (py >= g.pad_top && py < g.pad_top + g.src_h)
                for (int kx = 0; kx < g.kernel_w; kx++)
                    rowv[oy] |= 1ull << (ky * g.kernel_w + kx);
        }
    const int N = outw * outh, tiles = (N + MR - 1) / MR;
    masks.resize(tiles);
    size_t used = 0;
    for (int t = 0; t < tiles; t++)
    {
        uint64_t m = 0;
        for (int n = t * MR; n < std::min(N, t * MR + MR); n++)
            m |= colv[n % outw] & rowv[n / outw];
        // no tap reads the input (all padding): tap 0's zeros give the bias
        masks[t] = m ? m : 1ull;
        for (uint64_t b = masks[t]; b; b &= b - 1)
            used++;
    }
    if (used * 4 > (size_t)tiles * maxk * 3)
        masks.clear();
    return masks;
}

// An unpacked input's MR pixels of one tap and channel, the tile lying in one
// output row (window origins sx floats apart), as one vector: stride 1 a plain
// load, stride 2 the even lanes of 2*MR-1 floats (masked loads: nothing read
// past the last pixel). false: the caller gathers scalars.
template<int MR>
static inline bool conv_pack_row(const float* s, int sx, float* d)
{
#if defined(__AVX512F__)
    if (MR == 12 && sx == 1)
    {
        _mm512_mask_storeu_ps(d, (__mmask16)0xfff, _mm512_maskz_loadu_ps((__mmask16)0xfff, s));
        return true;
    }
    if (MR == 12 && sx == 2)
    {
        // pixels 0..11 are floats 0, 2, .., 22: the even lanes of two loads
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        const __m512 v0 = _mm512_loadu_ps(s);
        const __m512 v1 = _mm512_maskz_loadu_ps((__mmask16)0x7f, s + 16);
        _mm512_mask_storeu_ps(d, (__mmask16)0xfff, _mm512_permutex2var_ps(v0, even, v1));
        return true;
    }
#else
    (void)s;
    (void)sx;
    (void)d;
#endif
    return false;
}

// The tile's pixels for every k = tap * C + q (rows past nn zero). An
// unpacked input (PI 1): dst[k][MR]. A packed one: each tap's channel group g
// (PI channels) as MR whole elements, dst[tap][g][MR][PI], for
// conv_group_micro_kernel (k order unchanged, PI values a pixel contiguous).
// nbase[r]: float offset of pixel r's window origin; tofs[tap]: tap offset;
// sx > 0: a full tile in one output row, window origins sx floats apart.
// taps: the taps to pack (bit tap; conv_gemm_tap_masks), the rest left unwritten.
template<int MR, int PI>
static inline void conv_pack_tile(const Mat& in, int C, int maxk, const int* tofs, const int* nbase, int nn, int sx,
                                  float* dst, uint64_t taps = ~0ull)
{
    const int groups = C / PI;
    for (int tap = 0; tap < maxk; tap++)
    {
        if (tap < 64 && !(taps >> tap & 1))
            continue;
        for (int g = 0; g < groups; g++)
        {
            const float* src = (const float*)in.data + in.cstep * PI * g + tofs[tap];
            float* d = dst + ((size_t)tap * C + g * PI) * MR;
            if (PI == 1)
            {
                if (sx > 0 && conv_pack_row<MR>(src + nbase[0], sx, d))
                    continue;
                for (int r = 0; r < nn; r++)
                    d[r] = src[nbase[r]];
            }
            else if (sx == PI)
            {
                // stride 1: the tile's elements are contiguous
                memcpy(d, src + nbase[0], (size_t)MR * PI * sizeof(float));
                continue;
            }
            else
            {
                for (int r = 0; r < nn; r++)
                    simd::VF<PI>::store(d + r * PI, simd::VF<PI>::load(src + nbase[r]));
            }
            if (nn < MR)
                memset(d + nn * PI, 0, (size_t)(MR - nn) * PI * sizeof(float));
        }
    }
}

// acc(MR x 2 vectors) = init + tile x panel[G * PI][2P], the tile in groups
// of PI input channels: channel g*PI+i of pixel r at a[g * gstep + r * rs + i]
// (rs PI: a packed blob read in place by the 1x1 kernel or conv_pack_tile's
// [g][MR][PI]; PI 1: [K][MR] with gstep MR, or Winograd's rows of K with
// gstep 1, rs K). init: row r's 2P starting values at init + r * crs (crs 0:
// one bias row). NV 1: only the panel's first vector (a last panel with at
// most P channels: acc1 is left alone, the zero half of the panel skipped)
template<int P, int MR, int PI, int NV = 2>
static inline void conv_group_micro_kernel(const float* a, size_t gstep, int G, const float* w, const float* init,
                                           typename simd::VF<P>::T* acc0, typename simd::VF<P>::T* acc1, long crs = 0,
                                           long rs = PI)
{
    typedef simd::VF<P> V;
    typename V::T c0[MR], c1[MR];
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
    {
        c0[r] = V::load(init + r * crs);
        if (NV == 2)
            c1[r] = V::load(init + r * crs + P);
    }
    for (int g = 0; g < G; g++)
    {
        const float* ag = a + g * gstep;
#pragma GCC unroll 16
        for (int i = 0; i < PI; i++)
        {
            const typename V::T w0 = V::load(w);
            const typename V::T w1 = NV == 2 ? V::load(w + P) : w0;
#pragma GCC unroll 16
            for (int r = 0; r < MR; r++)
            {
                const typename V::T x = V::set1(ag[r * rs + i]);
                c0[r] = V::fmadd(x, w0, c0[r]);
                if (NV == 2)
                    c1[r] = V::fmadd(x, w1, c1[r]);
            }
            w += 2 * P;
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
    {
        acc0[r] = c0[r];
        if (NV == 2)
            acc1[r] = c1[r];
    }
}

// conv_group_micro_kernel for a tile of nn <= MR rows laid out for MR (gstep,
// rs): the narrowest kernel of MR, 8 or 4 rows that covers them (a last
// tile of 1 pixel costs 4 rows, not MR); returns the rows it computed
template<int P, int MR, int PI, int NV = 2>
static inline int conv_group_micro_kernel_rows(int nn, const float* a, size_t gstep, int G, const float* w,
                                               const float* init, typename simd::VF<P>::T* acc0, typename simd::VF<P>::T* acc1,
                                               long crs = 0, long rs = PI)
{
    if (MR > 4 && nn <= 4)
    {
        conv_group_micro_kernel<P, 4, PI, NV>(a, gstep, G, w, init, acc0, acc1, crs, rs);
        return 4;
    }
    if (MR > 8 && nn <= 8)
    {
        conv_group_micro_kernel<P, 8, PI, NV>(a, gstep, G, w, init, acc0, acc1, crs, rs);
        return 8;
    }
    conv_group_micro_kernel<P, MR, PI, NV>(a, gstep, G, w, init, acc0, acc1, crs, rs);
    return MR;
}

// the same, the panel's vectors chosen at run time: one where the panel
// holds at most P of the M channels (the rest of it is zero padding)
template<int P, int MR, int PI>
static inline int conv_panel_micro_kernel_rows(bool one, int nn, const float* a, size_t gstep, int G, const float* w,
                                               const float* init, typename simd::VF<P>::T* acc0,
                                               typename simd::VF<P>::T* acc1, long crs = 0, long rs = PI)
{
    if (one)
        return conv_group_micro_kernel_rows<P, MR, PI, 1>(nn, a, gstep, G, w, init, acc0, acc1, crs, rs);
    return conv_group_micro_kernel_rows<P, MR, PI, 2>(nn, a, gstep, G, w, init, acc0, acc1, crs, rs);
}

// tmp[nn][P] (pixels n0.., channels m..m+P-1) into out of elempack PO < P:
// the runs of PO channels below M, each a whole packed element per pixel
template<int P, int PO>
static inline void conv_store_runs(Mat& out, int m, int M, int n0, int nn, const float* tmp)
{
    for (int k = 0; k < P && m + k < M; k += PO)
    {
        float* dst = (float*)out.data + out.cstep * (size_t)(m + k) + (size_t)n0 * PO;
        for (int r = 0; r < nn; r++)
            simd::VF<PO>::store(dst + r * PO, simd::VF<PO>::load(tmp + r * P + k));
    }
}

// The finished MR x 2P tile (output pixels n0..n0+nn-1, channels m0..m0+2P-1;
// channels from out's count on dropped) activated into out, of any elempack
template<int P, int MR>
static inline void conv_store_tile(Mat& out, int m0, int n0, int nn, const typename simd::VF<P>::T* acc0,
                                   const typename simd::VF<P>::T* acc1, const Activation& act)
{
    const int M = out.c * out.elempack, po = out.elempack;
    for (int j = 0; j < 2; j++)
    {
        const int m = m0 + j * P;
        if (m >= M)
            break;
        const typename simd::VF<P>::T* acc = j == 0 ? acc0 : acc1;
        if (po >= P)
        {
            // a wider output elempack (a multiple of P, dividing M): the P
            // channels are a contiguous part of each packed element
            float* dst = (float*)out.data + out.cstep * po * (m / po) + (size_t)n0 * po + m % po;
            for (int r = 0; r < nn; r++)
                store_activated<P>(dst + r * po, acc[r], act);
        }
        else
        {
            // a narrower output elempack: the tile activated into a buffer,
            // then each run of po channels (po divides M, so a run is all
            // inside or all past it) written for every pixel of the tile
            float tmp[MR * P];
            for (int r = 0; r < nn; r++)
                store_activated<P>(tmp + r * P, acc[r], act);
            switch (po)
            {
            case 1:
                conv_store_runs<P, 1>(out, m, M, n0, nn, tmp);
                break;
#if KITE_SIMD_MAX_N >= 8
            case 4:
                conv_store_runs<P, 4>(out, m, M, n0, nn, tmp);
                break;
#endif
#if KITE_SIMD_MAX_N >= 16
            case 8:
                conv_store_runs<P, 8>(out, m, M, n0, nn, tmp);
                break;
#endif
            default:
                for (int r = 0; r < nn; r++)
                    store_channels<P>((float*)out.data, out.cstep, po, M, m, (size_t)n0 + r, tmp + r * P);
                break;
            }
        }
    }
}

// Packs tile t (output pixels t*MR..) of the padded input into dst[K][MR]
template<int MR, int PI>
static inline void conv_gemm_pack(const Mat& in, int C, int maxk, const int* tofs, const ConvGemmGeometry& g, int outw,
                                  int N, int t, float* dst, uint64_t taps = ~0ull)
{
    const int pi = PI;
    int nbase[MR];
    const int n0 = t * MR;
    const int nn = std::min(MR, N - n0);
    for (int r = 0; r < nn; r++)
    {
        const int oy = (n0 + r) / outw, ox = (n0 + r) % outw;
        nbase[r] = (oy * g.stride_h * in.w + ox * g.stride_w) * pi;
    }
    const int sx = nn == MR && n0 % outw + MR <= outw ? g.stride_w * pi : 0;
    conv_pack_tile<MR, PI>(in, C, maxk, tofs, nbase, nn, sx, dst, taps);
}

// Weight panel p against the packed tiles t0..t1-1 (packed: tile t0's first,
// K * MR floats each, laid out by conv_pack_tile), K in blocks of kc (a
// multiple of PI); partial: MR * NR floats per tile where K has more than one
// block
// masks (conv_gemm_tap_masks, by tile; may be null): each tile runs the
// runs of consecutive taps its mask holds, partial sums between runs (then
// partial is never null)
template<int P, int PI>
static inline void conv_gemm_panel(const float* packed, int t0, int t1, int p, const ConvPackedWeights& pw, int kc,
                                   float* partial, Mat& out, int N, const Activation& act, const uint64_t* masks = nullptr)
{
    typedef simd::VF<P> V;
    const int MR = ConvGemmTile<P>::MR;
    const int NR = 2 * P;
    const int K = pw.K;
    typename V::T acc0[MR], acc1[MR];
    const float* wp = pw.w.data() + (size_t)p * K * NR;
    const float* bp = pw.bias.data() + (size_t)p * NR;
    const bool one = pw.M - p * NR <= P;
    if (masks)
    {
        const int C = pw.C;
        for (int k0 = 0; k0 < K; k0 += kc)
        {
            const int kend = std::min(K, k0 + kc);
            for (int t = t0; t < t1; t++)
            {
                const uint64_t m = masks[t];
                int first = 0, last = 63;
                while (!(m >> first & 1))
                    first++;
                while (!(m >> last & 1))
                    last--;
                const int kfirst = first * C, klast = (last + 1) * C; // the tile's K range
                float* part = partial + (size_t)(t - t0) * MR * NR;
                const float* a = packed + (size_t)(t - t0) * K * MR;
                const int n0 = t * MR, nn = std::min(MR, N - n0);
                const int end = std::min(kend, klast);
                int k = std::max(k0, kfirst);
                while (k < end)
                {
                    const int tap = k / C;
                    if (!(m >> tap & 1))
                    {
                        k = (tap + 1) * C;
                        continue;
                    }
                    // a run of taps the tile reads, cut at the block's end
                    int e = (tap + 1) * C;
                    while (e < end && (m >> (e / C) & 1))
                        e += C;
                    e = std::min(e, end);
                    const bool start = k == kfirst;
                    const int rows = conv_panel_micro_kernel_rows<P, MR, PI>(
                        one, nn, a + (size_t)k * MR, (size_t)MR * PI, (e - k) / PI, wp + (size_t)k * NR, start ? bp : part,
                        acc0, acc1, start ? 0 : NR);
                    if (e == klast)
                    {
                        conv_store_tile<P, MR>(out, p * NR, n0, nn, acc0, acc1, act);
                        break;
                    }
                    for (int r = 0; r < rows; r++)
                    {
                        V::store(part + r * NR, acc0[r]);
                        if (!one)
                            V::store(part + r * NR + P, acc1[r]);
                    }
                    k = e;
                }
            }
        }
        return;
    }
#if !defined(__ARM_NEON)
    // weights larger than L2 come from memory: the next block (the next
    // panel's first after the last) fetched towards L2 a share per tile while
    // this block runs (as conv1x1_forward_pi does)
    const bool big_weights = (size_t)K * pw.M * sizeof(float) > (1u << 20);
    const float* wend = pw.w.data() + (size_t)pw.panels() * K * NR;
#endif
    for (int k0 = 0; k0 < K; k0 += kc)
    {
        const int kn = std::min(kc, K - k0);
#if !defined(__ARM_NEON)
        const float* wnext = wp + (size_t)(k0 + kn) * NR;
        const size_t next_lines = big_weights && wnext < wend ? std::min((size_t)(wend - wnext), (size_t)kc * NR) / 16 : 0;
#endif
        for (int t = t0; t < t1; t++)
        {
#if !defined(__ARM_NEON)
            for (size_t l = next_lines * (t - t0) / (t1 - t0); l < next_lines * (t - t0 + 1) / (t1 - t0); l++)
                _mm_prefetch((const char*)(wnext + l * 16), _MM_HINT_T1);
#endif
            // partial holds nothing when K is one block (never read then)
            float* part = partial ? partial + (size_t)(t - t0) * MR * NR : nullptr;
            const float* a = packed + (size_t)(t - t0) * K * MR + (size_t)k0 * MR;
            const int n0 = t * MR, nn = std::min(MR, N - n0);
            const int rows = k0 == 0 ? conv_panel_micro_kernel_rows<P, MR, PI>(one, nn, a, (size_t)MR * PI, kn / PI, wp, bp,
                                                                                acc0, acc1)
                                     : conv_panel_micro_kernel_rows<P, MR, PI>(one, nn, a, (size_t)MR * PI, kn / PI,
                                                                                wp + (size_t)k0 * NR, part, acc0, acc1, NR);
            if (k0 + kn < K)
            {
                for (int r = 0; r < rows; r++)
                {
                    V::store(part + r * NR, acc0[r]);
                    if (!one)
                        V::store(part + r * NR + P, acc1[r]);
                }
                continue;
            }
            conv_store_tile<P, MR>(out, p * NR, n0, nn, acc0, acc1, act);
        }
    }
}

// in: padded input of elempack PI (C channels); out: outw x outh x M, any
// elempack (P is the fastest).
// Returns 0, or -100 when the workspace cannot be allocated.
template<int P, int PI>
static inline int conv_gemm_forward_pi(const Mat& in, Mat& out, const ConvPackedWeights& pw, const ConvGemmGeometry& g,
                                       const Activation& act, int num_threads, Allocator* ws_allocator)
{
    const int MR = ConvGemmTile<P>::MR;
    const int NR = 2 * P;
    const int K = pw.K, C = pw.C, maxk = pw.maxk;
    const int pi = PI;
    const int outw = out.w;
    const int N = out.w * out.h;

    std::vector<int> tofs(maxk);
    for (int ky = 0, t = 0; ky < g.kernel_h; ky++)
        for (int kx = 0; kx < g.kernel_w; kx++, t++)
            tofs[t] = (ky * g.dilation_h * in.w + kx * g.dilation_w) * pi;

    const int tiles = (N + MR - 1) / MR;
    // tiles per chunk: the packed chunk stays within ~512 KiB of L2, ~1 MiB
    // where the weights are larger than L2 (9 MB for a 3x3 512 -> 512 layer),
    // so that they stream from memory once per chunk (a small map is one chunk)
    // (with taps skipped, a tile packs and reads only its taps' share of K)
    const std::vector<uint64_t> masks = conv_gemm_tap_masks(g, outw, out.h, MR);
    const uint64_t* mk = masks.empty() ? nullptr : masks.data();
    size_t kread = K;
    if (mk)
    {
        size_t used = 0;
        for (uint64_t m : masks)
            for (; m; m &= m - 1)
                used++;
        kread = std::max<size_t>(1, (size_t)K * used / ((size_t)tiles * maxk));
    }
    const size_t weight_bytes = (size_t)K * pw.M * sizeof(float);
    int chunk = std::max(1, (int)((weight_bytes > (1u << 20) ? 262144 : 131072) / (kread * MR)));
    const int chunks = (tiles + chunk - 1) / chunk;
    chunk = (tiles + chunks - 1) / chunks;
    const int panels = pw.panels();

    // K in blocks whose weight slice (kc x 2P) stays in L1 while the chunk's
    // tiles run against it; partial sums of a tile wait in a small buffer
    const int kblocks = std::max(1, K / (8192 / NR));
    const int kc = ((K + kblocks - 1) / kblocks + PI - 1) / PI * PI;
    const size_t partial_size = kblocks > 1 || mk ? (size_t)chunk * MR * NR : 0;

    // buffers from the workspace allocator (a pool: no fresh pages, no
    // clearing on every forward; everything is written before it is read)
    Mat ws;
    if (num_threads > 1 && chunks % num_threads != 0 && chunks < 4 * num_threads && panels > 1)
    {
        // few chunks for the threads: one chunk at a time, its tiles packed
        // by all threads together, then its panels split between them
        // (partial sums per panel)
        const size_t packed_size = (size_t)chunk * K * MR;
        ws.create((int)(packed_size + partial_size * panels), 4u, ws_allocator);
        if (ws.empty())
            return -100;
        float* packed = (float*)ws;
        float* partial = partial_size ? packed + packed_size : nullptr;
        #pragma omp parallel num_threads(num_threads)
        {
            for (int ci = 0; ci < chunks; ci++)
            {
                const int t0 = ci * chunk;
                const int t1 = std::min(tiles, t0 + chunk);
                #pragma omp for schedule(static)
                for (int t = t0; t < t1; t++)
                    conv_gemm_pack<MR, PI>(in, C, maxk, tofs.data(), g, outw, N, t, packed + (size_t)(t - t0) * K * MR,
                                           mk ? mk[t] : ~0ull);
                #pragma omp for schedule(static)
                for (int p = 0; p < panels; p++)
                    conv_gemm_panel<P, PI>(packed, t0, t1, p, pw, kc, partial ? partial + partial_size * p : nullptr, out, N,
                                           act, mk);
            }
        }
        return 0;
    }

    // a thread a contiguous range of chunks, with its own buffers
    const int nt = std::max(1, std::min(num_threads, chunks));
    const size_t per_thread = (size_t)chunk * K * MR + partial_size;
    ws.create((int)(per_thread * nt), 4u, ws_allocator);
    if (ws.empty())
        return -100;
    #pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int tid = 0; tid < nt; tid++)
    {
        float* packed = (float*)ws + per_thread * tid;
        float* partial = partial_size ? packed + (size_t)chunk * K * MR : nullptr;
        for (int ci = tid * chunks / nt; ci < (tid + 1) * chunks / nt; ci++)
        {
            const int t0 = ci * chunk;
            const int t1 = std::min(tiles, t0 + chunk);
            for (int t = t0; t < t1; t++)
                conv_gemm_pack<MR, PI>(in, C, maxk, tofs.data(), g, outw, N, t, packed + (size_t)(t - t0) * K * MR,
                                       mk ? mk[t] : ~0ull);
            for (int p = 0; p < panels; p++)
                conv_gemm_panel<P, PI>(packed, t0, t1, p, pw, kc, partial, out, N, act, mk);
        }
    }
    return 0;
}

template<int P>
static inline int conv_gemm_forward(const Mat& in, Mat& out, const ConvPackedWeights& pw, const ConvGemmGeometry& g,
                                    const Activation& act, int num_threads, Allocator* ws_allocator)
{
    switch (in.elempack)
    {
#if defined(__AVX512F__)
    case 16:
        return conv_gemm_forward_pi<P, 16>(in, out, pw, g, act, num_threads, ws_allocator);
#endif
#if defined(__AVX__)
    case 8:
        return conv_gemm_forward_pi<P, 8>(in, out, pw, g, act, num_threads, ws_allocator);
#endif
    case 4:
        return conv_gemm_forward_pi<P, 4>(in, out, pw, g, act, num_threads, ws_allocator);
    default:
        return conv_gemm_forward_pi<P, 1>(in, out, pw, g, act, num_threads, ws_allocator);
    }
}

// output pixels per tile of the 1x1 kernel: AVX-512's 32 registers (of any
// width) hold a 14 x 2-vector accumulator tile for 16-channel vectors (each
// weight load serves 14 FMAs; 14 also divides the 7 * 2^k maps of the
// mobile graphs, 196, 784, 3136, 12544 pixels: no tail tile, 49 = 3 x 14 +
// 7; MobileNetV2 about 4% less CPU time than with 12) and a 12 x 2 one for
// narrower outputs (shufflenet_v2's elempack 4 / 8 blobs measured no gain),
// the 16 of AVX/SSE a 6 x 2 one
template<int P>
struct Conv1x1Tile
{
    static const int MR = kMaxPack == 16 ? (P == 16 ? 14 : 12) : 6;
};

// 1x1 stride-1 convolution without padding on an input of elempack PI (the
// weights' K order, tap-major with one tap, is the packed channel order): a
// GEMM over the pixels with no im2col copy. Work is split over pixel chunks
// and weight panels together, so a small map still feeds every thread.
template<int P, int PI>
static inline void conv1x1_forward_pi(const Mat& in, Mat& out, const ConvPackedWeights& pw, const Activation& act,
                                      int num_threads)
{
    const int MR = Conv1x1Tile<P>::MR;
    const int NR = 2 * P;
    const int K = pw.K;
    const int G = K / PI;
    const int N = out.w * out.h;
    const size_t gstep = in.cstep * PI;
    const int tiles = (N + MR - 1) / MR;
    const int panels = pw.panels();
    // tiles per chunk: the chunk's input stays within ~256 KiB of L2, ~512
    // KiB where the weights are larger than L2 (2048 -> 512 on 7x7: 4 MB),
    // so that they stream from memory once per chunk (a small map one chunk)
    const size_t weight_bytes = (size_t)K * pw.M * sizeof(float);
    const bool big_weights = weight_bytes > (1u << 20);
    int chunk = std::max(1, (int)((big_weights ? 131072 : 65536) / ((size_t)K * MR)));
#if !defined(__ARM_NEON)
    const float* wend = pw.w.data() + (size_t)panels * K * NR;
#endif
    const int chunks = (tiles + chunk - 1) / chunk;
    chunk = (tiles + chunks - 1) / chunks;

    // K in blocks whose panel slice (kc x 2P floats, ~32 KiB) stays in L1
    // while the chunk's tiles run against it (a 1152-channel panel is
    // 147 KiB: without blocks every tile streamed it from L2); the partial
    // sums of the chunk's tiles wait in a small per-thread buffer
    const int kblocks = std::max(1, K / (8192 / NR));
    const int kc = ((K + kblocks - 1) / kblocks + PI - 1) / PI * PI;

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<float> tail; // the last pixels, zero padded: no read runs past the blob
        int tail_n0 = -1;        // the pixels tail holds (built once, used by every panel)
        std::vector<float> partial(kblocks > 1 ? (size_t)chunk * MR * NR : 0);
        typename simd::VF<P>::T acc0[MR], acc1[MR];
        #pragma omp for schedule(static)
        for (int idx = 0; idx < chunks * panels; idx++)
        {
            const int ci = idx / panels, p = idx % panels;
            const float* wp = pw.w.data() + (size_t)p * K * NR;
            const float* bp = pw.bias.data() + (size_t)p * NR;
            const bool one = pw.M - p * NR <= P; // a last panel of at most P channels: one vector
            const int tb = ci * chunk;
            const int t1 = std::min(tiles, (ci + 1) * chunk);
            for (int k0 = 0; k0 < K; k0 += kc)
            {
                const int kn = std::min(kc, K - k0);
                const int g0 = k0 / PI, gn = kn / PI;
                const bool last = k0 + kn >= K;
                const float* wk = wp + (size_t)k0 * NR;
#if !defined(__ARM_NEON)
                // weights larger than L2 come from memory: the next block
                // (the next panel's first after the last one; the panels lie
                // one after another) fetched towards L2 a share per tile
                // while this block runs, not on the next block's first tile
                const float* wnext = wk + (size_t)kn * NR;
                const size_t next_lines = big_weights && wnext < wend
                                              ? std::min((size_t)(wend - wnext), (size_t)kc * NR) / 16
                                              : 0;
#endif
                for (int t = tb; t < t1; t++)
                {
#if !defined(__ARM_NEON)
                    for (size_t l = next_lines * (t - tb) / (t1 - tb); l < next_lines * (t - tb + 1) / (t1 - tb); l++)
                        _mm_prefetch((const char*)(wnext + l * 16), _MM_HINT_T1);
#endif
                    const int n0 = t * MR;
                    const int nn = std::min(MR, N - n0);
                    // the first block starts from the bias, the others from
                    // the tile's partial sums (rows NR floats apart)
                    float* part = kblocks > 1 ? partial.data() + (size_t)(t - tb) * MR * NR : nullptr;
                    const float* init = k0 == 0 ? bp : part;
                    const long crs = k0 == 0 ? 0 : NR;
                    const float* a = (const float*)in.data + g0 * gstep + (size_t)n0 * PI;
                    int rows = MR;
                    if (nn == MR && one)
                    {
                        conv_group_micro_kernel<P, MR, PI, 1>(a, gstep, gn, wk, init, acc0, acc1, crs);
                    }
                    else if (nn == MR)
                    {
                        conv_group_micro_kernel<P, MR, PI>(a, gstep, gn, wk, init, acc0, acc1, crs);
                    }
                    else
                    {
                        // the last pixels copied into a zero-padded tile (no read
                        // runs past the blob), the narrowest kernel that covers them
                        if (tail_n0 != n0)
                        {
                            tail.assign((size_t)G * MR * PI, 0.f);
                            for (int g = 0; g < G; g++)
                                memcpy(tail.data() + (size_t)g * MR * PI, (const float*)in.data + g * gstep + (size_t)n0 * PI,
                                       (size_t)nn * PI * sizeof(float));
                            tail_n0 = n0;
                        }
                        rows = conv_panel_micro_kernel_rows<P, MR, PI>(one, nn, tail.data() + (size_t)g0 * MR * PI,
                                                                       (size_t)MR * PI, gn, wk, init, acc0, acc1, crs);
                    }
                    if (!last)
                    {
                        for (int r = 0; r < rows; r++)
                        {
                            simd::VF<P>::store(part + r * NR, acc0[r]);
                            if (!one)
                                simd::VF<P>::store(part + r * NR + P, acc1[r]);
                        }
                        continue;
                    }
                    conv_store_tile<P, MR>(out, p * NR, n0, nn, acc0, acc1, act);
                }
            }
        }
    }
}

template<int P>
static inline void conv1x1_forward(const Mat& in, Mat& out, const ConvPackedWeights& pw, const Activation& act,
                                   int num_threads)
{
    switch (in.elempack)
    {
#if defined(__AVX512F__)
    case 16:
        return conv1x1_forward_pi<P, 16>(in, out, pw, act, num_threads);
#endif
#if defined(__AVX__)
    case 8:
        return conv1x1_forward_pi<P, 8>(in, out, pw, act, num_threads);
#endif
    default:
        return conv1x1_forward_pi<P, 4>(in, out, pw, act, num_threads);
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_CONV_GEMM_H
