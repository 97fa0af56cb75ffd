#ifndef KITE_LAYER_ARM_CONV_INT8_ARM_H
#define KITE_LAYER_ARM_CONV_INT8_ARM_H

// The ARM int8 kernels behind cpu/conv_int8_cpu.h's interface (the x86
// family's are x86/conv_int8_x86.h), for the CPU drivers' neon and arm82
// builds.
//
// Convolution (group 1, 2-D): a GEMM with implicit im2col over the padded
// int8 input, tiles of 8 output pixels x 8 output channels in sixteen int32x4
// accumulators (4 channels of one pixel each), then the reference's epilogue
// (conv_int8_finish; on aarch64 four channels at a time, same roundings, for
// activations up to Clip), so outputs are bit-identical to the reference
// (integer sums are exact whatever the order).
//  - arm82 (armv8.2-a+dotprod; the level needs asimddp): weights packed as
//    [panels][K/4][8 channels][4 k] bytes, each tile's input as
//    [K/4][8 pixels][4 k]; one SDOT by element (vdotq_laneq_s32) adds the
//    4-term dot product of 4 channels with one pixel's 4 inputs.
//  - neon (armv8.0 / armv7): weights widened to int16 [panels][K][8], the
//    tile [K][8 pixels] int16; SMLAL by element (vmlal_lane_s16) adds one
//    product per lane.
// Depth-wise: arm/conv_dw_int8_arm.h. Everything else runs the reference's
// kernels (common/conv_kernel.h, common/conv_int8_planes.h).
#include "common/conv_int8_planes.h"
#include "common/conv_kernel.h"
#include "mat.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

namespace kite {
namespace KITE_ISA_NS {

#if defined(__ARM_NEON)
#if defined(__ARM_FEATURE_DOTPROD)
typedef signed char Int8Lane; // packed operands: bytes, 4 k per group
static const int kInt8KG = 4;
#else
typedef short Int8Lane; // packed operands: int16, one k per group
static const int kInt8KG = 1;
#endif
#endif

static const int kInt8MR = 8; // pixels per tile
static const int kInt8NR = 8; // output channels per panel

struct ConvInt8PackedWeights
{
    int M = 0, K = 0, KB = 0; // 0: no packed int8 kernel; KB: groups of kInt8KG k
#if defined(__ARM_NEON)
    std::vector<Int8Lane> w; // [panels][KB][NR][KG]
#endif
    int panels() const { return (M + kInt8NR - 1) / kInt8NR; }
};

// weight [M][K] int8 (ncnn's [out][in][kh][kw]); nothing packed without NEON
static inline void conv_int8_pack_weights(const signed char* weight, int M, int K, ConvInt8PackedWeights& out)
{
    out = ConvInt8PackedWeights();
#if defined(__ARM_NEON)
    out.M = M;
    out.K = K;
    out.KB = (K + kInt8KG - 1) / kInt8KG;
    out.w.assign((size_t)out.panels() * out.KB * kInt8NR * kInt8KG, 0);
    for (int m = 0; m < M; m++)
        for (int k = 0; k < K; k++)
            out.w[(((size_t)(m / kInt8NR) * out.KB + k / kInt8KG) * kInt8NR + m % kInt8NR) * kInt8KG + k % kInt8KG] =
                weight[(size_t)m * K + k];
#else
    (void)weight;
    (void)M;
    (void)K;
#endif
}

// the reference's int8 convolution for a job (what Convolution::run_int8 runs)
static inline void conv_int8_reference(const ConvInt8Job& j, int num_threads)
{
    if (j.group == 1 && conv_forward_int8_planes(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.g, j.pad_value, j.act,
                                                 num_threads, j.numerics))
        return;
    conv_forward_int8(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.group, j.g, j.pad_value, j.act, num_threads,
                      j.numerics);
}

} // namespace KITE_ISA_NS
} // namespace kite

// conv_int8_depthwise: NEON depth-wise (SDOT on arm82, SMLAL on neon); the
// four-lane epilogue the GEMM below shares
#include "arm/conv_dw_int8_arm.h"

namespace kite {
namespace KITE_ISA_NS {

#if defined(__ARM_NEON)
// The job's input with its padding made real (planes of W x H, the size the
// output, stride and kernel extent need), and the offset of each
// k = q * maxk + tap from a pixel's window origin in it
static inline void conv_int8_arm_pad(const ConvInt8Job& j, std::vector<signed char>& padded, std::vector<int>& koff, int* pw)
{
    const ConvGeometry& g = j.g;
    const int W = (j.out.w - 1) * g.stride_w + conv_kernel_extent(g.kernel_w, g.dilation_w);
    const int H = (j.out.h - 1) * g.stride_h + conv_kernel_extent(g.kernel_h, g.dilation_h);
    padded.assign((size_t)j.in.c * W * H, j.pad_value);
    const int x0 = std::max(0, g.pad_left), x1 = std::min(W, g.pad_left + j.in.w);
    for (int q = 0; q < j.in.c; q++)
        for (int y = 0; y < H && x1 > x0; y++)
        {
            const int iy = y - g.pad_top;
            if (iy >= 0 && iy < j.in.h)
                memcpy(padded.data() + ((size_t)q * H + y) * W + x0,
                       (const signed char*)j.in.data + j.in.cstep * q + (size_t)iy * j.in.w + (x0 - g.pad_left), x1 - x0);
        }
    koff.resize((size_t)j.in.c * g.kernel_w * g.kernel_h);
    for (int q = 0, k = 0; q < j.in.c; q++)
        for (int ky = 0; ky < g.kernel_h; ky++)
            for (int kx = 0; kx < g.kernel_w; kx++, k++)
                koff[k] = (q * H + ky * g.dilation_h) * W + kx * g.dilation_w;
    *pw = W;
}

// sums[r * NR + c] of one tile: a [KB][MR][KG] against w [KB][NR][KG]
static inline void conv_int8_arm_tile(const Int8Lane* a, const Int8Lane* w, int KB, int32_t* sums)
{
    int32x4_t c0[kInt8MR], c1[kInt8MR];
#pragma GCC unroll 8
    for (int r = 0; r < kInt8MR; r++)
        c0[r] = c1[r] = vdupq_n_s32(0);
    for (int kb = 0; kb < KB; kb++, a += kInt8MR * kInt8KG, w += kInt8NR * kInt8KG)
    {
#if defined(__ARM_FEATURE_DOTPROD)
        const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16);
        const int8x16_t x0 = vld1q_s8(a), x1 = vld1q_s8(a + 16);
#define KITE_INT8_DOT(r, x, l)                          \
    c0[r] = vdotq_laneq_s32(c0[r], w0, x, l);           \
    c1[r] = vdotq_laneq_s32(c1[r], w1, x, l)
        KITE_INT8_DOT(0, x0, 0);
        KITE_INT8_DOT(1, x0, 1);
        KITE_INT8_DOT(2, x0, 2);
        KITE_INT8_DOT(3, x0, 3);
        KITE_INT8_DOT(4, x1, 0);
        KITE_INT8_DOT(5, x1, 1);
        KITE_INT8_DOT(6, x1, 2);
        KITE_INT8_DOT(7, x1, 3);
#undef KITE_INT8_DOT
#else
        const int16x8_t wv = vld1q_s16(w), xv = vld1q_s16(a);
        const int16x4_t wl = vget_low_s16(wv), wh = vget_high_s16(wv), xl = vget_low_s16(xv), xh = vget_high_s16(xv);
#define KITE_INT8_MLAL(r, x, l)                        \
    c0[r] = vmlal_lane_s16(c0[r], wl, x, l);           \
    c1[r] = vmlal_lane_s16(c1[r], wh, x, l)
        KITE_INT8_MLAL(0, xl, 0);
        KITE_INT8_MLAL(1, xl, 1);
        KITE_INT8_MLAL(2, xl, 2);
        KITE_INT8_MLAL(3, xl, 3);
        KITE_INT8_MLAL(4, xh, 0);
        KITE_INT8_MLAL(5, xh, 1);
        KITE_INT8_MLAL(6, xh, 2);
        KITE_INT8_MLAL(7, xh, 3);
#undef KITE_INT8_MLAL
#endif
    }
#pragma GCC unroll 8
    for (int r = 0; r < kInt8MR; r++)
    {
        vst1q_s32(sums + r * kInt8NR, c0[r]);
        vst1q_s32(sums + r * kInt8NR + 4, c1[r]);
    }
}

#if defined(__aarch64__)
// the epilogue of output channels m..m+3 (m a multiple of 4) for the nn
// pixels n0.. of a tile: sums s[r * stride + 0..3] for pixel r; outputs
// planar (int8 or fp32) or fp32 packed 4
static inline void conv_int8_gemm_finish_quad(const ConvInt8Job& j, int m, const int32_t* s, int stride, int n0, int nn)
{
    const float32x4_t si = vld1q_f32(j.scale_in + m);
    const float32x4_t bi = j.bias ? vld1q_f32(j.bias + m) : vdupq_n_f32(0.f);
    const size_t cs = j.out.cstep;
    if (j.scale_out)
    {
        const float32x4_t so = vld1q_f32(j.scale_out + m);
        signed char* d = (signed char*)j.out.data + cs * m + n0;
        for (int r = 0; r < nn; r++, s += stride, d++)
        {
            const int32x4_t q = int8_requant_s32x4(int8_dequant_f32x4(vld1q_s32(s), si, bi, j.numerics, j.act), so, j.numerics);
            const int8x8_t b = vqmovn_s16(vcombine_s16(vqmovn_s32(q), vqmovn_s32(q)));
            vst1_lane_s8(d, b, 0);
            vst1_lane_s8(d + cs, b, 1);
            vst1_lane_s8(d + 2 * cs, b, 2);
            vst1_lane_s8(d + 3 * cs, b, 3);
        }
        return;
    }
    if (j.out_elempack == 4)
    {
        float* d = (float*)j.out.data + cs * m + (size_t)n0 * 4; // (m / 4) * cs * 4
        for (int r = 0; r < nn; r++, s += stride, d += 4)
            vst1q_f32(d, int8_dequant_f32x4(vld1q_s32(s), si, bi, j.numerics, j.act));
        return;
    }
    float* d = (float*)j.out.data + cs * m + n0;
    for (int r = 0; r < nn; r++, s += stride, d++)
    {
        const float32x4_t f = int8_dequant_f32x4(vld1q_s32(s), si, bi, j.numerics, j.act);
        vst1q_lane_f32(d, f, 0);
        vst1q_lane_f32(d + cs, f, 1);
        vst1q_lane_f32(d + 2 * cs, f, 2);
        vst1q_lane_f32(d + 3 * cs, f, 3);
    }
}
#endif

// Convolution (group 1, 2-D) for the job: bit-identical to the reference
static inline void conv_int8_gemm(const ConvInt8Job& j, const ConvInt8PackedWeights& pw, int num_threads)
{
    const int MR = kInt8MR, NR = kInt8NR, KG = kInt8KG;
    const ConvGeometry& g = j.g;
    std::vector<signed char> padded;
    std::vector<int> koff;
    int W = 0;
    conv_int8_arm_pad(j, padded, koff, &W);
    const int K = pw.K, KB = pw.KB, M = pw.M;
    const int outw = j.out.w, N = j.out.w * j.out.h;
    const int tiles = (N + MR - 1) / MR;
    int chunk = std::max(1, (int)(65536 / ((size_t)KB * MR * KG)));
    chunk = std::max(1, std::min(chunk, (tiles + num_threads - 1) / num_threads));
    const int chunks = (tiles + chunk - 1) / chunk;
    const signed char* src = padded.data();
    const int* ko = koff.data();
    // output (m, n) at out_offset(m) + n * op: planar, or packed fp32
    const int op = j.out_elempack;
    const bool vec = int8_vec_finish_arm(j.act);
    (void)vec; // (aarch64 only)

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<Int8Lane> tile((size_t)chunk * KB * MR * KG);
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
                Int8Lane* d = tile.data() + (size_t)(t - t0) * KB * MR * KG;
                int kb = 0;
                if (nn == MR && nbase[MR - 1] == nbase[0] + MR - 1)
                {
                    // the tile's pixels are adjacent input bytes (stride 1,
                    // one output row): each k's 8 values in one load
                    const signed char* s0 = src + nbase[0];
#if defined(__ARM_FEATURE_DOTPROD)
                    // 4 k x 8 pixels transposed into [8 pixels][4 k]
                    for (; (kb + 1) * KG <= K; kb++, d += MR * KG)
                    {
                        const int* kq = ko + kb * KG;
                        const int8x8x2_t ab = vzip_s8(vld1_s8(s0 + kq[0]), vld1_s8(s0 + kq[1]));
                        const int8x8x2_t ce = vzip_s8(vld1_s8(s0 + kq[2]), vld1_s8(s0 + kq[3]));
                        const int16x4x2_t lo = vzip_s16(vreinterpret_s16_s8(ab.val[0]), vreinterpret_s16_s8(ce.val[0]));
                        const int16x4x2_t hi = vzip_s16(vreinterpret_s16_s8(ab.val[1]), vreinterpret_s16_s8(ce.val[1]));
                        vst1q_s8(d, vreinterpretq_s8_s16(vcombine_s16(lo.val[0], lo.val[1])));
                        vst1q_s8(d + 16, vreinterpretq_s8_s16(vcombine_s16(hi.val[0], hi.val[1])));
                    }
#else
                    for (; kb < K; kb++, d += MR)
                        vst1q_s16(d, vmovl_s8(vld1_s8(s0 + ko[kb])));
#endif
                }
                for (; kb < KB; kb++, d += MR * KG)
                    for (int kk = 0; kk < KG; kk++)
                    {
                        const int k = kb * KG + kk;
                        const signed char* s = k < K ? src + ko[k] : nullptr;
                        for (int r = 0; r < MR; r++)
                            d[r * KG + kk] = (s && r < nn) ? s[nbase[r]] : 0;
                    }
            }
            for (int p = 0; p < pw.panels(); p++)
            {
                const Int8Lane* wp = pw.w.data() + (size_t)p * KB * NR * KG;
                const int m0 = p * NR, mm = std::min(NR, M - m0);
                for (int t = t0; t < t1; t++)
                {
                    const int n0 = t * MR, nn = std::min(MR, N - n0);
                    conv_int8_arm_tile(tile.data() + (size_t)(t - t0) * KB * MR * KG, wp, KB, sums);
                    int jj = 0;
#if defined(__aarch64__)
                    // whole quads of channels four lanes at a time
                    for (; vec && jj + 4 <= mm && (op == 1 || op == 4); jj += 4)
                        conv_int8_gemm_finish_quad(j, m0 + jj, sums + jj, NR, n0, nn);
#endif
                    for (; jj < mm; jj++)
                    {
                        const int m = m0 + jj;
                        const size_t o = j.out.cstep * op * (size_t)(m / op) + m % op;
                        for (int r = 0; r < nn; r++)
                            conv_int8_finish(sums[r * NR + jj], m, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                             o + (size_t)(n0 + r) * op);
                    }
                }
            }
        }
    }
}
#else
// reached only with packed weights, which a build without NEON does not make
static inline void conv_int8_gemm(const ConvInt8Job& j, const ConvInt8PackedWeights&, int num_threads)
{
    conv_int8_reference(j, num_threads);
}
#endif

// int8 matrix-vector products for InnerProduct (the x86 driver's
// int8_gemv), exact: sums[m] = sum_k x[k] * w[m * K + k]. NEON: 16 values
// per step, SDOT on arm82, SMULL + SADALP (int16 products pairwise into
// int32) otherwise; the tail in scalar code.
static inline void int8_gemv(const signed char* x, const signed char* w, int M, int K, int32_t* sums, int num_threads)
{
    #pragma omp parallel for num_threads(num_threads)
    for (int m = 0; m < M; m++)
    {
        const signed char* wr = w + (size_t)K * m;
        int k = 0;
        int32_t s = 0;
#if defined(__ARM_NEON)
        int32x4_t acc = vdupq_n_s32(0);
        for (; k + 16 <= K; k += 16)
        {
            const int8x16_t xv = vld1q_s8(x + k), wv = vld1q_s8(wr + k);
#if defined(__ARM_FEATURE_DOTPROD)
            acc = vdotq_s32(acc, xv, wv);
#else
            acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(xv), vget_low_s8(wv)));
            acc = vpadalq_s16(acc, vmull_s8(vget_high_s8(xv), vget_high_s8(wv)));
#endif
        }
        int32_t lanes[4];
        vst1q_s32(lanes, acc);
        s = lanes[0] + lanes[1] + lanes[2] + lanes[3];
#endif
        for (; k < K; k++)
            s += (int)x[k] * (int)wr[k];
        sums[m] = s;
    }
}


// no fused quantize-and-unpack: the driver unpacks, the reference quantizes
template<int P>
static inline int quantize_unpack_int8(const Mat&, Mat&, float, Allocator*, int)
{
    return -1;
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_ARM_CONV_INT8_ARM_H
