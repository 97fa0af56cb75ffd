#ifndef KITE_LAYER_ARM_CONV_DW_INT8_ARM_H
#define KITE_LAYER_ARM_CONV_DW_INT8_ARM_H

// int8 depth-wise convolution (group == channels == outputs, 2-D) for the ARM
// drivers: conv_int8_depthwise(job), the x86 driver's run_int8 hook. The
// int32 sums are the reference's (exact integer arithmetic in another order)
// and the epilogue is conv_forward_int8's (conv_int8_finish), computed four
// lanes at a time on aarch64 where the activation allows it (same roundings:
// scvtf, fmul + fadd or fmla as the numerics ask, fcvtas for float2int8,
// +-0.5 and fcvtzs for float2int8_addhalf), so outputs are bit-identical.
//
// Per channel, in a per-thread buffer, the padded plane (the size the output,
// stride and kernel extent need) is made real; output rows then run 16
// pixels (four int32x4 accumulators) at a time through the taps:
//  - arm82 (dot product): the plane stays int8. Four taps of a kernel row
//    form a group; for four adjacent outputs one TBL gathers their 4 x 4
//    inputs (output l, tap i at l * stride + i * dilation of a 16-byte load)
//    and one SDOT against the group's weights (repeated per output, zero past
//    the kernel width) adds 4 taps to 4 outputs. Needs 3 (stride + dilation)
//    <= 15.
//  - neon (armv8.0 / armv7): the plane is widened to int16 and each tap adds
//    weight x 8 inputs with SMLAL (stride 1: one load; stride 2: LD2's even
//    lanes).
// Other strides take the taps one by one (scalar), then the same epilogue.
//
// Included by arm/conv_int8_arm.h (its includes, Int8Lane and
// conv_int8_reference); compiled once per ARM level in kite::KITE_ISA_NS.

#include "simd/simd.h"
#include "cpu/conv_vec_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

#if defined(__ARM_NEON)

// plane values: conv_int8_arm.h's Int8Lane (int8 for the SDOT kernel, int16
// for SMLAL)
typedef Int8Lane DwInt8Lane;

static const int kDwInt8Block = 16; // outputs per accumulator block (4 x int32x4)

#if defined(__aarch64__)
// conv_int8_finish on four lanes (aarch64: fused fmla, fcvtas), same
// roundings, so the same values. int8_dequant_f32x4: the fp32 value
// (sum * scale_in + bias as the numerics ask, then the activation);
// int8_requant_s32x4: that value times scale_out as int8 (int32 lanes in
// [-127, 127]). Only for activations up to Clip (int8_vec_finish_arm).
static inline float32x4_t int8_dequant_f32x4(int32x4_t sum, float32x4_t si, float32x4_t bi, int numerics, const Activation& act)
{
    const float32x4_t x = vcvtq_f32_s32(sum);
    float32x4_t t;
    if (numerics & CONV_INT8_FMA_BIAS)
        t = vfmaq_f32(bi, x, si);
    else
    {
        float32x4_t p = vmulq_f32(x, si);
        __asm__("" : "+w"(p)); // rounded on its own, as conv_int8_product
        t = vaddq_f32(p, bi);
    }
    return activate<4>(t, act);
}

static inline int32x4_t int8_requant_s32x4(float32x4_t f, float32x4_t so, int numerics)
{
    const float32x4_t x = vmulq_f32(f, so);
    int32x4_t r;
    if (numerics & CONV_INT8_ROUND_ADDHALF)
    {
        // float2int8_addhalf: + copysign(0.5), truncate; NaN and |a| >= 2^31
        // give -127
        const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u));
        const float32x4_t a = vaddq_f32(x, vreinterpretq_f32_u32(vorrq_u32(sign, vreinterpretq_u32_f32(vdupq_n_f32(0.5f)))));
        r = vbslq_s32(vcaltq_f32(a, vdupq_n_f32(2147483648.f)), vcvtq_s32_f32(a), vdupq_n_s32(-127));
    }
    else
        r = vcvtaq_s32_f32(x); // float2int8: round half away from zero (NaN -> 0)
    return vmaxq_s32(vminq_s32(r, vdupq_n_s32(127)), vdupq_n_s32(-127));
}
#endif

// whether the vector epilogue applies: aarch64, activations up to Clip
static inline bool int8_vec_finish_arm(const Activation& act)
{
#if defined(__aarch64__)
    return act.type == ACTIVATION_NONE || act.type == ACTIVATION_RELU || act.type == ACTIVATION_LEAKYRELU
           || act.type == ACTIVATION_CLIP;
#else
    (void)act;
    return false;
#endif
}

// conv_int8_finish for n (<= 16) outputs of channel q at element o of the
// output, sums s[0..16) (lanes past n are computed and dropped)
static inline void dw_int8_finish_block(const ConvInt8Job& j, int q, const int32_t* s, int n, size_t o, bool vec)
{
#if defined(__aarch64__)
    if (vec)
    {
        const float32x4_t si = vdupq_n_f32(j.scale_in[q]), bi = vdupq_n_f32(j.bias ? j.bias[q] : 0.f);
        const bool requant = j.scale_out != nullptr;
        const float32x4_t so = vdupq_n_f32(requant ? j.scale_out[q] : 1.f);
        const int nv = (n + 3) / 4;
        float32x4_t f[4];
        int32x4_t r[4];
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++)
        {
            if (v >= nv)
            {
                r[v] = vdupq_n_s32(0);
                continue;
            }
            f[v] = int8_dequant_f32x4(vld1q_s32(s + 4 * v), si, bi, j.numerics, j.act);
            if (requant)
                r[v] = int8_requant_s32x4(f[v], so, j.numerics);
        }
        if (!requant)
        {
            float* d = (float*)j.out.data + o;
            for (int v = 0; v < nv; v++)
            {
                if (4 * v + 4 <= n)
                    vst1q_f32(d + 4 * v, f[v]);
                else
                {
                    // 1..3 lanes
                    const int c = n - 4 * v;
                    vst1q_lane_f32(d + 4 * v, f[v], 0);
                    if (c > 1)
                        vst1q_lane_f32(d + 4 * v + 1, f[v], 1);
                    if (c > 2)
                        vst1q_lane_f32(d + 4 * v + 2, f[v], 2);
                }
            }
            return;
        }
        const int16x8_t h0 = vcombine_s16(vqmovn_s32(r[0]), vqmovn_s32(r[1]));
        const int16x8_t h1 = vcombine_s16(vqmovn_s32(r[2]), vqmovn_s32(r[3]));
        const int8x16_t b = vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1));
        signed char* d = (signed char*)j.out.data + o;
        if (n == 16)
            vst1q_s8(d, b);
        else
        {
            // runs of 8 and 4 bytes (fixed-size copies), then bytes
            signed char tmp[16];
            vst1q_s8(tmp, b);
            int i = 0;
            if (n >= 8)
            {
                memcpy(d, tmp, 8);
                i = 8;
            }
            if (i + 4 <= n)
            {
                memcpy(d + i, tmp + i, 4);
                i += 4;
            }
            for (; i < n; i++)
                d[i] = tmp[i];
        }
        return;
    }
#else
    (void)vec;
#endif
    for (int i = 0; i < n; i++)
        conv_int8_finish(s[i], q, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data, o + i);
}

// channel q's input rows into the padded plane (H rows of W values) whose
// padding the caller filled once: the same cells are padding for every
// channel of the job, so only the input's cells are written
static inline void dw_int8_plane(const ConvInt8Job& j, int q, int W, int H, DwInt8Lane* dst)
{
    const ConvGeometry& g = j.g;
    const int x0 = std::min(W, std::max(0, g.pad_left)), x1 = std::max(x0, std::min(W, g.pad_left + j.in.w));
    const int y0 = std::max(0, g.pad_top), y1 = std::min(H, g.pad_top + j.in.h);
    const int n = x1 - x0;
    const signed char* src = (const signed char*)j.in.data + j.in.cstep * q + (x0 - g.pad_left);
    for (int y = y0; y < y1; y++)
    {
        const signed char* s = src + (size_t)(y - g.pad_top) * j.in.w;
        DwInt8Lane* d = dst + (size_t)y * W + x0;
        int i = 0;
#if defined(__ARM_FEATURE_DOTPROD)
        for (; i + 16 <= n; i += 16)
            vst1q_s8(d + i, vld1q_s8(s + i));
        for (; i + 8 <= n; i += 8)
            vst1_s8(d + i, vld1_s8(s + i));
#else
        for (; i + 8 <= n; i += 8)
            vst1q_s16(d + i, vmovl_s8(vld1_s8(s + i)));
#endif
        for (; i < n; i++)
            d[i] = s[i];
    }
}

#if defined(__ARM_FEATURE_DOTPROD)
// sums[0 .. 4 NV) of 4 NV adjacent outputs whose first window starts at p:
// per kernel row ky (rows ystep apart) and tap group t, NV TBL + SDOT
template<int NV>
static inline void dw_int8_sums(const signed char* p, const signed char* wg, int kh, int ng, int ystep, int sw, int dw,
                                int8x16_t idx, int32_t* sums)
{
    int32x4_t a[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++)
        a[v] = vdupq_n_s32(0);
    const uint8x16_t ix = vreinterpretq_u8_s8(idx);
    for (int ky = 0; ky < kh; ky++, p += ystep)
        for (int t = 0; t < ng; t++, wg += 16)
        {
            const signed char* s = p + 4 * t * dw;
            const int8x16_t wv = vld1q_s8(wg);
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++)
                a[v] = vdotq_s32(a[v], vqtbl1q_s8(vld1q_s8(s + 4 * v * sw), ix), wv);
        }
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++)
        vst1q_s32(sums + 4 * v, a[v]);
}
#else
// sums[0 .. 8 NH) of 8 NH adjacent outputs whose first window starts at p
// (stride 1 or 2): per tap, NH loads and 2 NH SMLAL
template<int NH, int S>
static inline void dw_int8_sums(const int16_t* p, const signed char* wq, int kh, int kw, int ystep, int dw, int32_t* sums)
{
    int32x4_t a[2 * NH];
#pragma GCC unroll 4
    for (int v = 0; v < 2 * NH; v++)
        a[v] = vdupq_n_s32(0);
    for (int ky = 0; ky < kh; ky++, p += ystep)
        for (int kx = 0; kx < kw; kx++)
        {
            const int16_t wv = wq[ky * kw + kx];
            const int16_t* s = p + kx * dw;
#pragma GCC unroll 2
            for (int h = 0; h < NH; h++)
            {
                const int16x8_t x = S == 1 ? vld1q_s16(s + 8 * h) : vld2q_s16(s + 16 * h).val[0];
                a[2 * h] = vmlal_n_s16(a[2 * h], vget_low_s16(x), wv);
                a[2 * h + 1] = vmlal_n_s16(a[2 * h + 1], vget_high_s16(x), wv);
            }
        }
#pragma GCC unroll 4
    for (int v = 0; v < 2 * NH; v++)
        vst1q_s32(sums + 4 * v, a[v]);
}
#endif

static inline void conv_int8_depthwise(const ConvInt8Job& j, int num_threads)
{
    const ConvGeometry& g = j.g;
    const int W = (j.out.w - 1) * g.stride_w + conv_kernel_extent(g.kernel_w, g.dilation_w);
    const int H = (j.out.h - 1) * g.stride_h + conv_kernel_extent(g.kernel_h, g.dilation_h);
    const int kw = g.kernel_w, kh = g.kernel_h, maxk = kw * kh;
    const int outw = j.out.w, outh = j.out.h;
    const int sw = g.stride_w, dw = g.dilation_w;
    const bool vec_finish = int8_vec_finish_arm(j.act);
#if defined(__ARM_FEATURE_DOTPROD)
    const bool fast = 3 * (sw + dw) <= 15;
    const int ng = (kw + 3) / 4; // tap groups of a kernel row
    // output l of a quad, tap i of a group: byte l * stride + i * dilation
    int8x16_t idx;
    {
        signed char t[16];
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 4; i++)
                t[l * 4 + i] = (signed char)(fast ? l * sw + i * dw : 0);
        idx = vld1q_s8(t);
    }
    const size_t slack = (size_t)16 * sw + (size_t)4 * ng * dw + 64;
#else
    const bool fast = sw == 1 || sw == 2;
    const size_t slack = (size_t)16 * sw + 64;
#endif
    #pragma omp parallel num_threads(num_threads)
    {
        // the padding (and the slack the vector loads may read) once
        std::vector<DwInt8Lane> plane((size_t)W * H + slack, (DwInt8Lane)j.pad_value);
        int32_t sums[kDwInt8Block];
#if defined(__ARM_FEATURE_DOTPROD)
        std::vector<signed char> wg((size_t)kh * ng * 16);
#endif
        #pragma omp for
        for (int q = 0; q < j.out.c; q++)
        {
            dw_int8_plane(j, q, W, H, plane.data());
            const signed char* wq = j.weight + (size_t)q * maxk;
            const size_t o_q = j.out.cstep * q;
            if (!fast)
            {
                // taps one by one
                for (int oy = 0; oy < outh; oy++)
                    for (int ox0 = 0; ox0 < outw; ox0 += kDwInt8Block)
                    {
                        const int n = std::min(kDwInt8Block, outw - ox0);
                        for (int r = 0; r < n; r++)
                        {
                            int s = 0;
                            const DwInt8Lane* p = plane.data() + (size_t)oy * g.stride_h * W + (size_t)(ox0 + r) * sw;
                            for (int ky = 0; ky < kh; ky++)
                                for (int kx = 0; kx < kw; kx++)
                                    s += (int)p[(size_t)ky * g.dilation_h * W + kx * dw] * (int)wq[ky * kw + kx];
                            sums[r] = s;
                        }
                        dw_int8_finish_block(j, q, sums, n, o_q + (size_t)oy * outw + ox0, vec_finish);
                    }
                continue;
            }
#if defined(__ARM_FEATURE_DOTPROD)
            // group weights: w[ky][4t + i] for each of the 4 outputs, 0 past kw
            for (int ky = 0; ky < kh; ky++)
                for (int t = 0; t < ng; t++)
                {
                    int32_t quad = 0;
                    for (int i = 0; i < 4 && 4 * t + i < kw; i++)
                        quad |= (int32_t)(uint8_t)wq[ky * kw + 4 * t + i] << (8 * i);
                    vst1q_s8(wg.data() + ((size_t)ky * ng + t) * 16, vreinterpretq_s8_s32(vdupq_n_s32(quad)));
                }
#endif
            for (int oy = 0; oy < outh; oy++)
            {
                const DwInt8Lane* row = plane.data() + (size_t)oy * g.stride_h * W;
                for (int ox0 = 0; ox0 < outw; ox0 += kDwInt8Block)
                {
                    const int n = std::min(kDwInt8Block, outw - ox0);
#if defined(__ARM_FEATURE_DOTPROD)
                    const DwInt8Lane* p = row + (size_t)ox0 * sw;
                    switch ((n + 3) / 4)
                    {
                    case 1:
                        dw_int8_sums<1>(p, wg.data(), kh, ng, g.dilation_h * W, sw, dw, idx, sums);
                        break;
                    case 2:
                        dw_int8_sums<2>(p, wg.data(), kh, ng, g.dilation_h * W, sw, dw, idx, sums);
                        break;
                    case 3:
                        dw_int8_sums<3>(p, wg.data(), kh, ng, g.dilation_h * W, sw, dw, idx, sums);
                        break;
                    default:
                        dw_int8_sums<4>(p, wg.data(), kh, ng, g.dilation_h * W, sw, dw, idx, sums);
                        break;
                    }
#else
                    const DwInt8Lane* p = row + (size_t)ox0 * sw;
                    const int ys = g.dilation_h * W;
                    if (sw == 1)
                        n > 8 ? dw_int8_sums<2, 1>(p, wq, kh, kw, ys, dw, sums) : dw_int8_sums<1, 1>(p, wq, kh, kw, ys, dw, sums);
                    else
                        n > 8 ? dw_int8_sums<2, 2>(p, wq, kh, kw, ys, dw, sums) : dw_int8_sums<1, 2>(p, wq, kh, kw, ys, dw, sums);
#endif
                    dw_int8_finish_block(j, q, sums, n, o_q + (size_t)oy * outw + ox0, vec_finish);
                }
            }
        }
    }
}

#else

static inline void conv_int8_depthwise(const ConvInt8Job& j, int num_threads)
{
    conv_int8_reference(j, num_threads);
}

#endif // __ARM_NEON

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_ARM_CONV_DW_INT8_ARM_H
