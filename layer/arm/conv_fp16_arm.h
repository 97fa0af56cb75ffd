#ifndef KITE_LAYER_ARM_CONV_FP16_ARM_H
#define KITE_LAYER_ARM_CONV_FP16_ARM_H

// fp16 arithmetic convolution kernels for arm82 (armv8.2-a+fp16, asimdhp):
// blobs of elempack 8 fp16, one float16x8_t per packed element, fmla .8h.
// Used by convolution_arm.cpp / convolutiondepthwise_arm.cpp when the option
// asks for fp16 storage and fp16 arithmetic (Option::use_fp16_arithmetic) and
// the layer runs at the arm82 level (chosen from the CPU's hwcaps; cores
// without asimdhp take the neon level, which has no fp16 arithmetic).
//
// Convolution: an implicit-im2col GEMM on the padded pack-8 input, 8 output
// pixels x 8 output channels per tile: for each input element (8 channels)
// of each tap, 8 weight vectors (one per input lane) are multiplied by the
// lanes of the 8 pixels' input vectors (vmulq/vfmaq_laneq_f16): an 8-term
// fp16 dot product per output lane, widened into fp32 accumulators (ncnn
// accumulates the whole sum in fp16; that drifts by several fp16 steps over
// a few dozen inputs). Depth-wise: one vfmaq_f16 per tap per 8 channels,
// accumulated in fp16 (kernel_w * kernel_h terms), 4 output pixels per weight
// load. The fused activation runs in fp32 (cpu/conv_vec_cpu.h's activate<4>).

#include "cpu/conv_vec_cpu.h"
#include "log.h"
#include "mat.h"
#include "option.h"

#include <vector>

#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#include <arm_neon.h>

namespace kite {
namespace KITE_ISA_NS {

// Input preparation shared by both layers: an fp16 elempack-8 copy of bottom
// (cast from fp32, repacked from elempack 1/4), padded by pads (left, right,
// top, bottom) with pad_value. Returns 0, -100 on allocation failure, -1 when
// the channels do not pack by 8.
static inline int conv_fp16_prepare_input(const Mat& bottom, Mat& padded, const int* pads, float pad_value, const Option& opt)
{
    Option opt_ws = opt;
    opt_ws.blob_allocator = opt.workspace_allocator;
    Mat h = bottom;
    if (h.elembits() == 32)
    {
        cast_float32_to_float16(bottom, h, opt_ws);
        if (h.empty())
            return -100;
    }
    if (h.elempack != 8)
    {
        if ((h.c * h.elempack) % 8 != 0)
            return -1;
        Mat p;
        convert_packing(h, p, 8, opt_ws);
        if (p.empty())
            return -100;
        h = p;
    }
    padded = h;
    if (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0)
    {
        copy_make_border(h, padded, pads[2], pads[3], pads[0], pads[1], BORDER_CONSTANT, pad_value, opt_ws);
        if (padded.empty())
            return -100;
    }
    return 0;
}

// activation on 8 fp32 lanes (two vectors), stored as fp16
static inline void conv_fp32_store_fp16(__fp16* p, float32x4_t lo, float32x4_t hi, const Activation& act)
{
    vst1q_f16(p, vcombine_f16(vcvt_f16_f32(activate<4>(lo, act)), vcvt_f16_f32(activate<4>(hi, act))));
}

// activation on 8 fp16 lanes, stored; ReLU stays in fp16, the others widen
static inline void conv_fp16_store(__fp16* p, float16x8_t v, const Activation& act)
{
    if (act.type == ACTIVATION_RELU)
        v = vmaxq_f16(v, vdupq_n_f16((__fp16)0.f));
    else if (act.type != ACTIVATION_NONE)
    {
        float32x4_t lo = activate<4>(vcvt_f32_f16(vget_low_f16(v)), act);
        float32x4_t hi = activate<4>(vcvt_high_f32_f16(v), act);
        v = vcombine_f16(vcvt_f16_f32(lo), vcvt_f16_f32(hi));
    }
    vst1q_f16(p, v);
}

// Weights of a (group 1) convolution for pack-8 fp16 blobs:
// w[M/8][C/8][maxk][8 input lanes][8 output lanes] fp16, bias[M] fp32 (0
// without one)
struct ConvFp16Weights
{
    int M = 0, C = 0, maxk = 0; // M 0: not prepared
    Mat w, bias;
};

// weight: the reference's [M][C][maxk] fp32. Leaves M 0 unless M and C pack by 8.
static inline int conv_fp16_pack_weights(const float* weight, const float* bias, int M, int C, int maxk, ConvFp16Weights& pw)
{
    pw = ConvFp16Weights();
    if (M % 8 != 0 || C % 8 != 0 || M <= 0 || C <= 0)
        return 0;
    pw.w.create(M * C * maxk, (size_t)2u);
    pw.bias.create(M, (size_t)4u);
    if (pw.w.empty() || pw.bias.empty())
        return -100;
    __fp16* w = (__fp16*)pw.w.data;
    float* b = (float*)pw.bias.data;
    const int CB = C / 8;
    for (int m = 0; m < M; m++)
    {
        b[m] = bias ? bias[m] : 0.f;
        for (int c = 0; c < C; c++)
            for (int k = 0; k < maxk; k++)
                w[((((size_t)(m / 8) * CB + c / 8) * maxk + k) * 8 + c % 8) * 8 + m % 8] = (__fp16)weight[((size_t)m * C + c) * maxk + k];
    }
    pw.M = M;
    pw.C = C;
    pw.maxk = maxk;
    return 0;
}

// NT output pixels x 8 output channels: acc{lo,hi}[i] = bias + the sum over
// the input elements and taps. Each tap of each input element (8 channels)
// is a dot product of 8 terms in fp16 (fmul + 7 fmla by lane), widened and
// added to fp32 accumulators: long sums in fp16 alone drift by several fp16
// steps (K = 48 inputs in [-2, 2] already moved outputs by 0.04 under test).
// nbase: each pixel's offset (halves) in a channel of the padded input,
// tofs: each tap's offset
template<int NT>
static inline void conv_fp16_tile(const __fp16* in, size_t cstep, int CB, int maxk, const int* tofs, const int* nbase,
                                  const __fp16* wp, float32x4_t bias_lo, float32x4_t bias_hi, float32x4_t* lo, float32x4_t* hi)
{
    for (int i = 0; i < NT; i++)
    {
        lo[i] = bias_lo;
        hi[i] = bias_hi;
    }
    for (int cb = 0; cb < CB; cb++)
    {
        const __fp16* ic = in + cstep * cb;
        for (int k = 0; k < maxk; k++, wp += 64)
        {
            const float16x8_t w0 = vld1q_f16(wp), w1 = vld1q_f16(wp + 8), w2 = vld1q_f16(wp + 16), w3 = vld1q_f16(wp + 24);
            const float16x8_t w4 = vld1q_f16(wp + 32), w5 = vld1q_f16(wp + 40), w6 = vld1q_f16(wp + 48), w7 = vld1q_f16(wp + 56);
            const __fp16* t = ic + tofs[k];
            for (int i = 0; i < NT; i++)
            {
                const float16x8_t x = vld1q_f16(t + nbase[i]);
                float16x8_t a = vmulq_laneq_f16(w0, x, 0);
                a = vfmaq_laneq_f16(a, w1, x, 1);
                a = vfmaq_laneq_f16(a, w2, x, 2);
                a = vfmaq_laneq_f16(a, w3, x, 3);
                a = vfmaq_laneq_f16(a, w4, x, 4);
                a = vfmaq_laneq_f16(a, w5, x, 5);
                a = vfmaq_laneq_f16(a, w6, x, 6);
                a = vfmaq_laneq_f16(a, w7, x, 7);
                lo[i] = vaddq_f32(lo[i], vcvt_f32_f16(vget_low_f16(a)));
                hi[i] = vaddq_f32(hi[i], vcvt_high_f32_f16(a));
            }
        }
    }
}

// kernel geometry: kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h
struct ConvFp16Geometry
{
    int kw, kh, dw, dh, sw, sh;
};

// The fp16 forward's common start for a layer of `channels` input channels:
// resolves nothing itself (pads from the layer), prepares the padded pack-8
// input, checks the channels and the kernel extent, creates the fp16 pack-8
// output of out_channels. Returns 0, -100, or -1 after logging (what names the layer).
static inline int conv_fp16_begin(const Mat& bottom, Mat& padded, Mat& top, const int* pads, float pad_value, int channels,
                                  int out_channels, const ConvFp16Geometry& g, const char* what, const Option& opt)
{
    int ret = conv_fp16_prepare_input(bottom, padded, pads, pad_value, opt);
    if (ret == -100)
        return ret;
    if (ret != 0 || padded.c * 8 != channels)
    {
        KITE_LOGE("%s: input has %d channels, the weights expect %d", what, bottom.c * bottom.elempack, channels);
        return -1;
    }
    const int ext_w = g.dw * (g.kw - 1) + 1, ext_h = g.dh * (g.kh - 1) + 1;
    if (padded.w < ext_w || padded.h < ext_h)
    {
        KITE_LOGE("%s: input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d", what, bottom.w, bottom.h, padded.w,
                  padded.h, ext_w, ext_h);
        return -1;
    }
    top.create((padded.w - ext_w) / g.sw + 1, (padded.h - ext_h) / g.sh + 1, out_channels / 8, (size_t)16u, 8,
               opt.blob_allocator);
    return top.empty() ? -100 : 0;
}

// an fp32 copy of an fp16 blob (same elempack) for the fp32 drivers
static inline int conv_fp16_to_fp32(const Mat& bottom, Mat& f, const Option& opt)
{
    Option opt_ws = opt;
    opt_ws.blob_allocator = opt.workspace_allocator;
    cast_float16_to_float32(bottom, f, opt_ws);
    return f.empty() ? -100 : 0;
}

// the tap offsets (halves) of a kernel in a pack-8 blob of width w
static inline std::vector<int> conv_fp16_tap_offsets(const ConvFp16Geometry& g, int w)
{
    std::vector<int> tofs((size_t)g.kw * g.kh);
    for (int ky = 0; ky < g.kh; ky++)
        for (int kx = 0; kx < g.kw; kx++)
            tofs[(size_t)ky * g.kw + kx] = (ky * g.dh * w + kx * g.dw) * 8;
    return tofs;
}

// in: padded fp16 pack 8 (C/8 channels); out: fp16 pack 8, created by the caller
static inline void conv_fp16_forward(const Mat& in, Mat& out, const ConvFp16Weights& pw, const ConvFp16Geometry& g,
                                     const Activation& act, int num_threads)
{
    const int outw = out.w, N = out.w * out.h, MB = pw.M / 8, CB = pw.C / 8, maxk = pw.maxk;
    const std::vector<int> tofs = conv_fp16_tap_offsets(g, in.w);
    const int tiles = (N + 7) / 8;
    const size_t icstep = in.cstep * 8, ocstep = out.cstep * 8;
    const __fp16* inp = (const __fp16*)in.data;
    #pragma omp parallel for num_threads(num_threads) schedule(static)
    for (int idx = 0; idx < MB * tiles; idx++)
    {
        const int mb = idx / tiles, n0 = (idx % tiles) * 8;
        const int nn = N - n0 < 8 ? N - n0 : 8;
        int nbase[8];
        for (int i = 0; i < nn; i++)
        {
            const int oy = (n0 + i) / outw, ox = (n0 + i) % outw;
            nbase[i] = (oy * g.sh * in.w + ox * g.sw) * 8;
        }
        const __fp16* wp = (const __fp16*)pw.w.data + (size_t)mb * CB * maxk * 64;
        const float32x4_t blo = vld1q_f32((const float*)pw.bias.data + mb * 8), bhi = vld1q_f32((const float*)pw.bias.data + mb * 8 + 4);
        __fp16* op = (__fp16*)out.data + ocstep * mb + (size_t)n0 * 8;
        float32x4_t lo[8], hi[8];
        if (nn == 8)
        {
            conv_fp16_tile<8>(inp, icstep, CB, maxk, tofs.data(), nbase, wp, blo, bhi, lo, hi);
            for (int i = 0; i < 8; i++)
                conv_fp32_store_fp16(op + i * 8, lo[i], hi[i], act);
        }
        else
        {
            for (int i = 0; i < nn; i++)
            {
                conv_fp16_tile<1>(inp, icstep, CB, maxk, tofs.data(), nbase + i, wp, blo, bhi, lo, hi);
                conv_fp32_store_fp16(op + i * 8, lo[0], hi[0], act);
            }
        }
    }
}

// Depth-wise weights for pack-8 fp16 blobs: w[C/8][maxk][8], bias[C]
struct ConvDwFp16Weights
{
    int C = 0, maxk = 0; // C 0: not prepared
    Mat w, bias;
};

// weight: the reference's [C][maxk] fp32. Leaves C 0 unless C packs by 8.
static inline int conv_dw_fp16_pack_weights(const float* weight, const float* bias, int C, int maxk, ConvDwFp16Weights& pw)
{
    pw = ConvDwFp16Weights();
    if (C % 8 != 0 || C <= 0)
        return 0;
    pw.w.create(C * maxk, (size_t)2u);
    pw.bias.create(C, (size_t)2u);
    if (pw.w.empty() || pw.bias.empty())
        return -100;
    __fp16* w = (__fp16*)pw.w.data;
    __fp16* b = (__fp16*)pw.bias.data;
    for (int c = 0; c < C; c++)
    {
        b[c] = (__fp16)(bias ? bias[c] : 0.f);
        for (int k = 0; k < maxk; k++)
            w[((size_t)(c / 8) * maxk + k) * 8 + c % 8] = (__fp16)weight[(size_t)c * maxk + k];
    }
    pw.C = C;
    pw.maxk = maxk;
    return 0;
}

// in: padded fp16 pack 8; out: fp16 pack 8 of C/8 channels, created by the caller
static inline void conv_dw_fp16_forward(const Mat& in, Mat& out, const ConvDwFp16Weights& pw, const ConvFp16Geometry& g,
                                        const Activation& act, int num_threads)
{
    const int outw = out.w, outh = out.h, maxk = pw.maxk;
    const std::vector<int> tofs = conv_fp16_tap_offsets(g, in.w);
    const int* to = tofs.data();
    const int sx = g.sw * 8;
    #pragma omp parallel for num_threads(num_threads) schedule(static)
    for (int q = 0; q < pw.C / 8; q++)
    {
        const __fp16* wp = (const __fp16*)pw.w.data + (size_t)q * maxk * 8;
        const float16x8_t bias = vld1q_f16((const __fp16*)pw.bias.data + q * 8);
        const __fp16* ic = (const __fp16*)in.data + in.cstep * 8 * q;
        __fp16* op = (__fp16*)out.data + out.cstep * 8 * q;
        for (int oy = 0; oy < outh; oy++)
        {
            const __fp16* row = ic + (size_t)oy * g.sh * in.w * 8;
            int ox = 0;
            for (; ox + 4 <= outw; ox += 4)
            {
                const __fp16* p = row + ox * sx;
                float16x8_t a0 = bias, a1 = bias, a2 = bias, a3 = bias;
                for (int k = 0; k < maxk; k++)
                {
                    const float16x8_t w = vld1q_f16(wp + k * 8);
                    const __fp16* t = p + to[k];
                    a0 = vfmaq_f16(a0, vld1q_f16(t), w);
                    a1 = vfmaq_f16(a1, vld1q_f16(t + sx), w);
                    a2 = vfmaq_f16(a2, vld1q_f16(t + 2 * sx), w);
                    a3 = vfmaq_f16(a3, vld1q_f16(t + 3 * sx), w);
                }
                __fp16* o = op + ((size_t)oy * outw + ox) * 8;
                conv_fp16_store(o, a0, act);
                conv_fp16_store(o + 8, a1, act);
                conv_fp16_store(o + 16, a2, act);
                conv_fp16_store(o + 24, a3, act);
            }
            for (; ox < outw; ox++)
            {
                const __fp16* p = row + ox * sx;
                float16x8_t a = bias;
                for (int k = 0; k < maxk; k++)
                    a = vfmaq_f16(a, vld1q_f16(p + to[k]), vld1q_f16(wp + k * 8));
                conv_fp16_store(op + ((size_t)oy * outw + ox) * 8, a, act);
            }
        }
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // __ARM_FEATURE_FP16_VECTOR_ARITHMETIC

#endif // KITE_LAYER_ARM_CONV_FP16_ARM_H
