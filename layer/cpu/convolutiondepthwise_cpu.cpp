// ConvolutionDepthWise for the CPU: the depth-wise case (group == channels ==
// num_output) on packed blobs. Each packed element holds P channels, so one
// vector FMA per tap computes P channels at once; the weights are repacked in
// create_pipeline to [channels/P][kh*kw][P]. The output keeps the input's
// elempack; elempack 1 (channel counts that do not pack, shufflenet_v2's 58)
// runs vectorised along output rows (conv_dw_rows_cpu.h). int8 depth-wise
// on a packed fp32 input runs the packed fp32 kernels on integral floats
// (exact int32 sums; the reference's epilogue in their stores:
// forward_int8_exact); a planar or int8 input, or an int8 output, takes the
// reference's scales and the family's depth-wise int8 kernel
// (cpu/conv_int8_cpu.h); its fp32 outputs come packed on x86. On arm82 with fp16 storage and fp16
// arithmetic, channels that pack by 8 run arm/conv_fp16_arm.h's pack-8 fp16
// kernel. Grouped layers (not depth-wise) run one Convolution driver per
// group (fp32) or the family's int8 GEMM per group (see create_group_ops);
// dynamic weights use the reference.
#include "convolutiondepthwise.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "cpu/conv_direct_planar_cpu.h"
#include "cpu/conv_dw_rows_cpu.h"
#include "cpu/conv_int8_cpu.h"
#include "cpu/conv_vec_cpu.h"
#include "cpu/depthwise_pack_cpu.h"
#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#define KITE_CPU_CONV_FP16 1
#include "arm/conv_fp16_arm.h" // the arm82 fp16 kernels
#else
#define KITE_CPU_CONV_FP16 0
#endif
#include "log.h"
#include "modelbin.h"
#include "paramdict.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

namespace {

// outputs per block of the fixed-size kernels: as many independent
// accumulators as the registers hold beside the 9 weights of a 3x3 window
// (32 registers on AVX-512 and aarch64, 16 elsewhere)
#if KITE_SIMD_MAX_N >= 16 || defined(__aarch64__)
static const int kDwBlock = 8;
#else
static const int kDwBlock = 4;
#endif

// NB consecutive outputs of one row whose KW x KH windows lie inside the
// input: output i reads from s0 + i * STEP, tap (ky, kx) at ky * rstep + kx *
// CSTEP; wk: the KH * KW weight vectors of V::N floats; outputs at d + i *
// V::N. Taps and offsets are compile-time, the NB accumulators independent
// (one chain of KH * KW dependent FMAs per output would wait on the FMA
// latency); the sum runs bias first, then the taps in row-major order (as
// border())
// one finished output vector: the sum activated; with dq (forward_int8_exact:
// a sum of int8 products, exact) first sum * dqs rounded on its own, + dqb
// (the reference's int8 epilogue for depth-wise layers)
template<class V>
static inline void dw_store(float* d, typename V::T a, const Activation& act, bool dq, typename V::T dqs, typename V::T dqb)
{
    if (dq)
    {
        a = V::mul(a, dqs);
        simd_round_barrier(a);
        a = V::add(a, dqb);
    }
    store_activated<V::N>(d, a, act);
}

template<class V, int KW, int KH, int NB, int STEP, int CSTEP>
static inline void dw_block(const float* s0, int rstep, const float* wk, typename V::T b, float* d, const Activation& act,
                            bool dq = false, typename V::T dqs = V::zero(), typename V::T dqb = V::zero())
{
    typename V::T a[NB];
#pragma GCC unroll 8
    for (int i = 0; i < NB; i++)
        a[i] = b;
#pragma GCC unroll 7
    for (int ky = 0; ky < KH; ky++)
    {
        const float* s = s0 + (size_t)ky * rstep;
#pragma GCC unroll 7
        for (int kx = 0; kx < KW; kx++)
        {
            const typename V::T wv = V::load(wk + (ky * KW + kx) * V::N);
#pragma GCC unroll 8
            for (int i = 0; i < NB; i++)
                a[i] = V::fmadd(V::load(s + kx * CSTEP + i * STEP), wv, a[i]);
        }
    }
    if (act.type == ACTIVATION_NONE && !dq)
    {
#pragma GCC unroll 8
        for (int i = 0; i < NB; i++)
            V::store(d + i * V::N, a[i]);
        return;
    }
#pragma GCC unroll 8
    for (int i = 0; i < NB; i++)
        dw_store<V>(d + i * V::N, a[i], act, dq, dqs, dqb);
}

// in: unpadded, elempack P, read as if padded by pad_left/pad_top (and enough
// on the right/bottom for out's size) with pad_value; out: elempack P; weight
// [c/P][maxk][P]; bias [c] or null. Windows wholly inside the input run
// without bounds checks, four outputs at a time; border windows check each tap.
// No padded copy: a depth-wise layer does 9 FMAs per element, so copying the
// blob first would cost about as much as the layer.
// KS 3, 5 or 7: a KS x KS kernel with stride_w SW and dilation_w 1 (g says so),
// whose rows with every kernel row inside the input run dw_block; 0: any kernel
// dq: null, or the int8 dequantize scale per channel (forward_int8_exact):
// the sums start at zero and finish as sum * dq rounded + bias, then act.
// qscale > 0: each channel's input plane is first quantized to integral
// floats, float2int8(x * qscale), into a per-thread buffer (while it is in
// cache) and read from there; the pads keep pad_value as given
template<int P, int KS, int SW>
void depthwise_packed(const Mat& in, Mat& out, const float* weight, const float* bias, const DwGeometry& g,
                      int pad_left, int pad_top, float pad_value, const Activation& act, int num_threads,
                      const float* dq, float qscale)
{
    typedef simd::VF<P> V;
    const int maxk = g.kernel_w * g.kernel_h;
    std::vector<int> ofs(maxk);
    for (int ky = 0, k = 0; ky < g.kernel_h; ky++)
        for (int kx = 0; kx < g.kernel_w; kx++, k++)
            ofs[k] = (ky * g.dilation_h * in.w + kx * g.dilation_w) * P;
    const int outw = out.w, outh = out.h, w = in.w, h = in.h;
    const int ext_w = (g.kernel_w - 1) * g.dilation_w + 1;
    // output columns whose windows lie inside the input: [ox_lo, ox_hi)
    const int ox_lo = std::min(outw, (pad_left + g.stride_w - 1) / g.stride_w);
    const int ox_hi = w + pad_left - ext_w < 0 ? ox_lo
                                                : std::max(ox_lo, std::min(outw, (w + pad_left - ext_w) / g.stride_w + 1));
    const int* o = ofs.data();
    const int sx = g.stride_w * P;
    // stride 1 with P narrower than the ISA's vectors: R = W/P adjacent output
    // pixels are W adjacent floats in the input and the output, so one wide
    // FMA per tap computes R pixels (weights and bias repeated R times);
    // shufflenet_v2's 116/232-channel blobs are elempack 4/8
    const int W = kMaxPack > P ? kMaxPack : P, R = W / P;
    typedef simd::VF<W> VW;
    // (not for the fixed 3x3/5x5 blocks: there the taps' loads at P-float
    // offsets would split cache lines for most taps of a wide vector; 8
    // independent P-lane outputs ran faster: blazeface's 64x64x24 at elempack
    // 8 0.25 against 0.31 ms for 8 layers)
    const bool wide = R > 1 && g.stride_w == 1 && KS == 0 && !dq;
    std::vector<float> wide_wb;
    if (wide)
    {
        wide_wb.resize((size_t)out.c * (maxk + 1) * W);
        for (int q = 0; q < out.c; q++)
            for (int k = 0; k <= maxk; k++)
                for (int r = 0; r < R; r++)
                    for (int i = 0; i < P; i++)
                        wide_wb[((size_t)q * (maxk + 1) + k) * W + r * P + i]
                            = k < maxk ? weight[((size_t)q * maxk + k) * P + i] : bias ? bias[q * P + i] : 0.f;
    }

    const size_t plane = (size_t)in.w * in.h * P;
    #pragma omp parallel num_threads(num_threads)
    {
    std::vector<float> qbuf(qscale > 0.f ? plane + 64 : 0); // (slack: reads stay inside the plane)
    #pragma omp for
    for (int q = 0; q < out.c; q++)
    {
        const float* src = (const float*)in.data + in.cstep * P * q;
        if (qscale > 0.f)
        {
            const typename V::T vs = V::set1(qscale);
            for (size_t i = 0; i < plane; i += P)
                V::store(qbuf.data() + i, float2int8_ps<V>(V::mul(V::load(src + i), vs)));
            src = qbuf.data();
        }
        float* dst = (float*)out.data + out.cstep * P * q;
        const float* wq = weight + (size_t)maxk * P * q;
        const float* wwq = wide ? wide_wb.data() + (size_t)q * (maxk + 1) * W : nullptr; // [maxk][W], then bias
        const bool dqon = dq != nullptr;
        const typename V::T dqb = bias ? V::load(bias + q * P) : V::zero();
        const typename V::T dqs = dqon ? V::load(dq + q * P) : V::zero();
        const typename V::T b = dqon ? V::zero() : dqb;
        const typename V::T pv = V::set1(pad_value);
        // one output through bounds-checked taps
        auto border = [&](int ox, int iy0) {
            const int ix0 = ox * g.stride_w - pad_left;
            typename V::T a = b;
            for (int ky = 0; ky < g.kernel_h; ky++)
            {
                const int iy = iy0 + ky * g.dilation_h;
                for (int kx = 0; kx < g.kernel_w; kx++)
                {
                    const int ix = ix0 + kx * g.dilation_w;
                    const typename V::T v = iy >= 0 && iy < h && ix >= 0 && ix < w
                                                ? V::load(src + ((size_t)iy * w + ix) * P)
                                                : pv;
                    a = V::fmadd(v, V::load(wq + (ky * g.kernel_w + kx) * P), a);
                }
            }
            dw_store<V>(dst + (size_t)ox * P, a, act, dqon, dqs, dqb);
        };
        for (int oy = 0; oy < outh; oy++, dst += (size_t)outw * P)
        {
            const int iy0 = oy * g.stride_h - pad_top;
            // kernel rows inside the input: [kyb, kye). With a zero pad value
            // the taps outside add nothing, so the top/bottom rows run the
            // inside loops over the inside kernel rows only
            int kyb = 0, kye = g.kernel_h;
            while (kyb < kye && iy0 + kyb * g.dilation_h < 0)
                kyb++;
            while (kye > kyb && iy0 + (kye - 1) * g.dilation_h >= h)
                kye--;
            if (kyb == kye || ((kyb > 0 || kye < g.kernel_h) && pad_value != 0.f))
            {
                for (int ox = 0; ox < outw; ox++)
                    border(ox, iy0);
                continue;
            }
            for (int ox = 0; ox < ox_lo; ox++)
                border(ox, iy0);
            const int k0 = kyb * g.kernel_w, k1 = kye * g.kernel_w;
            const int obase = o[k0]; // the first inside kernel row starts the window
            const float* row = src + (size_t)(iy0 + kyb * g.dilation_h) * w * P;
            int ox = ox_lo;
            if (KS != 0 && kyb == 0 && kye == KS)
            {
                // the whole window inside: fixed taps, blocks of independent outputs
                const int rstep = g.dilation_h * w * P;
                if (wide)
                {
                    const typename VW::T bw = VW::load(wwq + (size_t)maxk * W);
                    for (; ox + kDwBlock * R <= ox_hi; ox += kDwBlock * R)
                        dw_block<VW, KS, KS, kDwBlock, W, P>(row + (size_t)(ox - pad_left) * P, rstep, wwq, bw,
                                                             dst + (size_t)ox * P, act);
                    for (; ox + R <= ox_hi; ox += R)
                        dw_block<VW, KS, KS, 1, W, P>(row + (size_t)(ox - pad_left) * P, rstep, wwq, bw, dst + (size_t)ox * P,
                                                      act);
                }
                for (; ox + kDwBlock <= ox_hi; ox += kDwBlock)
                    dw_block<V, KS, KS, kDwBlock, SW * P, P>(row + (size_t)(ox * SW - pad_left) * P, rstep, wq, b,
                                                             dst + (size_t)ox * P, act, dqon, dqs, dqb);
                // the tail in blocks of 4 and 2 (a small map's row is mostly tail)
                if (kDwBlock > 4 && ox + 4 <= ox_hi)
                {
                    dw_block<V, KS, KS, 4, SW * P, P>(row + (size_t)(ox * SW - pad_left) * P, rstep, wq, b,
                                                      dst + (size_t)ox * P, act, dqon, dqs, dqb);
                    ox += 4;
                }
                if (ox + 2 <= ox_hi)
                {
                    dw_block<V, KS, KS, 2, SW * P, P>(row + (size_t)(ox * SW - pad_left) * P, rstep, wq, b,
                                                      dst + (size_t)ox * P, act, dqon, dqs, dqb);
                    ox += 2;
                }
                for (; ox < ox_hi; ox++)
                    dw_block<V, KS, KS, 1, SW * P, P>(row + (size_t)(ox * SW - pad_left) * P, rstep, wq, b,
                                                      dst + (size_t)ox * P, act, dqon, dqs, dqb);
            }
            if (wide)
            {
                const typename VW::T bw = VW::load(wwq + (size_t)maxk * W);
                for (; ox + 2 * R <= ox_hi; ox += 2 * R)
                {
                    const float* s0 = row + (size_t)(ox - pad_left) * P;
                    typename VW::T a0 = bw, a1 = bw;
                    for (int k = k0; k < k1; k++)
                    {
                        const typename VW::T wk = VW::load(wwq + (size_t)k * W);
                        const float* s = s0 + (o[k] - obase);
                        a0 = VW::fmadd(VW::load(s), wk, a0);
                        a1 = VW::fmadd(VW::load(s + W), wk, a1);
                    }
                    store_activated<W>(dst + (size_t)ox * P, a0, act);
                    store_activated<W>(dst + (size_t)ox * P + W, a1, act);
                }
                for (; ox + R <= ox_hi; ox += R)
                {
                    const float* s0 = row + (size_t)(ox - pad_left) * P;
                    typename VW::T a0 = bw;
                    for (int k = k0; k < k1; k++)
                        a0 = VW::fmadd(VW::load(s0 + (o[k] - obase)), VW::load(wwq + (size_t)k * W), a0);
                    store_activated<W>(dst + (size_t)ox * P, a0, act);
                }
            }
            // four outputs at a time share each weight load
            for (; ox + 3 < ox_hi; ox += 4)
            {
                const float* s0 = row + (size_t)(ox * g.stride_w - pad_left) * P;
                typename V::T a0 = b, a1 = b, a2 = b, a3 = b;
                for (int k = k0; k < k1; k++)
                {
                    const typename V::T wk = V::load(wq + k * P);
                    const float* s = s0 + (o[k] - obase);
                    a0 = V::fmadd(V::load(s), wk, a0);
                    a1 = V::fmadd(V::load(s + sx), wk, a1);
                    a2 = V::fmadd(V::load(s + 2 * sx), wk, a2);
                    a3 = V::fmadd(V::load(s + 3 * sx), wk, a3);
                }
                float* d = dst + (size_t)ox * P;
                dw_store<V>(d, a0, act, dqon, dqs, dqb);
                dw_store<V>(d + P, a1, act, dqon, dqs, dqb);
                dw_store<V>(d + 2 * P, a2, act, dqon, dqs, dqb);
                dw_store<V>(d + 3 * P, a3, act, dqon, dqs, dqb);
            }
            for (; ox < ox_hi; ox++)
            {
                const float* s = row + (size_t)(ox * g.stride_w - pad_left) * P;
                typename V::T a = b;
                for (int k = k0; k < k1; k++)
                    a = V::fmadd(V::load(s + (o[k] - obase)), V::load(wq + k * P), a);
                dw_store<V>(dst + (size_t)ox * P, a, act, dqon, dqs, dqb);
            }
            for (ox = ox_hi; ox < outw; ox++)
                border(ox, iy0);
        }
    }
    }
}

// depthwise_packed with the fixed-size blocks for 3x3, 5x5 and 7x7 kernels of
// stride 1 or 2 (dilation_w 1)
template<int P, int KS>
void depthwise_packed_ks(const Mat& in, Mat& out, const float* weight, const float* bias, const DwGeometry& g,
                         int pad_left, int pad_top, float pad_value, const Activation& act, int num_threads, const float* dq,
                         float qscale)
{
    if (g.stride_w == 1)
        return depthwise_packed<P, KS, 1>(in, out, weight, bias, g, pad_left, pad_top, pad_value, act, num_threads, dq, qscale);
    depthwise_packed<P, KS, 2>(in, out, weight, bias, g, pad_left, pad_top, pad_value, act, num_threads, dq, qscale);
}

template<int P>
void depthwise_packed_any(const Mat& in, Mat& out, const float* weight, const float* bias, const DwGeometry& g,
                          int pad_left, int pad_top, float pad_value, const Activation& act, int num_threads,
                          const float* dq = nullptr, float qscale = 0.f)
{
    const bool fixed = g.dilation_w == 1 && (g.stride_w == 1 || g.stride_w == 2);
    if (fixed && g.kernel_w == 3 && g.kernel_h == 3)
        return depthwise_packed_ks<P, 3>(in, out, weight, bias, g, pad_left, pad_top, pad_value, act, num_threads, dq, qscale);
    if (fixed && g.kernel_w == 5 && g.kernel_h == 5)
        return depthwise_packed_ks<P, 5>(in, out, weight, bias, g, pad_left, pad_top, pad_value, act, num_threads, dq, qscale);
    if (fixed && g.kernel_w == 7 && g.kernel_h == 7)
        return depthwise_packed_ks<P, 7>(in, out, weight, bias, g, pad_left, pad_top, pad_value, act, num_threads, dq, qscale);
    depthwise_packed<P, 0, 1>(in, out, weight, bias, g, pad_left, pad_top, pad_value, act, num_threads, dq, qscale);
}

} // namespace

// the Convolution driver of this ISA level (convolution_cpu.cpp): one per
// group of a grouped layer
Layer* Convolution_cpu_layer_creator(void*);

class ConvolutionDepthWise_cpu : public ConvolutionDepthWise
{
public:
    ConvolutionDepthWise_cpu()
    {
        support_packing = true;
    }

    ~ConvolutionDepthWise_cpu() override
    {
        delete_group_ops();
    }

    bool accept() const override
    {
        return !dynamic_weight;
    }

    int load_param(const ParamDict& pd) override
    {
        int ret = ConvolutionDepthWise::load_param(pd);
        // 64-bit: load_param may have refused values whose product overflows int
        depthwise = ret == 0 && group == num_output
                    && (int64_t)weight_data_size == (int64_t)num_output * kernel_w * kernel_h;
        // int8 blobs stay elempack 1; a depth-wise int8 layer takes packed fp32
        // inputs and quantizes and unpacks them in one pass (forward_int8_packed)
        support_packing = int8_scale_term == 0 || depthwise;
        return ret;
    }

    int destroy_pipeline(const Option& opt) override
    {
        // the group drivers hold the only copy of released weights: they stay
        // (the next create_pipeline rebuilds weight_data from them)
        if (!weights_released)
        {
            for (Layer* op : group_ops)
                op->destroy_pipeline(opt);
            delete_group_ops();
        }
        group_int8.clear();
        return ConvolutionDepthWise::destroy_pipeline(opt);
    }

    int create_pipeline(const Option& opt) override
    {
        // a second create_pipeline after light mode released the weights
        if (weights_released && weight_data.empty())
        {
            weight_data = loaded_weights();
            if (weight_data.empty())
                return -100;
        }
        weights_released = false;
        int ret = create_pipeline_fp32(opt);
#if KITE_CPU_CONV_FP16
        if (ret == 0)
            ret = create_pipeline_fp16(opt);
#endif
        choose_path();
        return ret;
    }

    const char* kernel_path() const override
    {
        return path.c_str();
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
#if KITE_CPU_CONV_FP16
        if (fp16w.C != 0 && bottom_blob.elembits() == 16)
            return forward_fp16(bottom_blob, top_blob, opt);
#endif
        if (!depthwise)
            return forward_grouped(bottom_blob, top_blob, opt);
        if (weight_data.elemsize == 1u && opt.use_int8_inference && bottom_blob.dims == 3 && bottom_blob.elempack > 1)
            return forward_int8_packed(bottom_blob, top_blob, opt);
        return forward_fp32(bottom_blob, top_blob, opt);
    }

    using ConvolutionDepthWise::forward;

protected:
    // fp32 outputs of the x86 depth-wise int8 kernel come packed, as the fp32
    // path's (the widest vector that divides the channels); ARM's are planar
    int int8_out_elempack() const override
    {
#if defined(__SSE2__) && !defined(__ARM_NEON)
        if (depthwise && weight_data.elemsize == 1u)
            for (int p = KITE_SIMD_MAX_N; p >= 4; p /= 2)
                if (num_output % p == 0)
                    return p;
#endif
        return 1;
    }

    void run_int8(const ConvInt8Job& job, int num_threads) const override
    {
        if (job.in.d != 1 || job.out.d != 1)
            return ConvolutionDepthWise::run_int8(job, num_threads);
        if (job.group == job.in.c && job.group == job.out.c * job.out_elempack)
            return conv_int8_depthwise(job, num_threads);
        run_int8_grouped(job, num_threads);
    }

private:
    // out = float2int8(in * scale) as integral floats, in's shape and packing
    template<int P>
    static int quantize_integral(const Mat& in, Mat& out, float scale, const Option& opt)
    {
        typedef simd::VF<P> V;
        out.create(in.w, in.h, in.c, in.elemsize, P, opt.blob_allocator);
        if (out.empty())
            return -100;
        const size_t n = (size_t)in.w * in.h * P;
        const typename V::T vs = V::set1(scale);
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < in.c; q++)
        {
            const float* src = (const float*)in.data + in.cstep * P * q;
            float* dst = (float*)out.data + out.cstep * P * q;
            for (size_t i = 0; i < n; i += P)
                V::store(dst + i, float2int8_ps<V>(V::mul(V::load(src + i), vs)));
        }
        return 0;
    }

    // int8 depth-wise on a packed fp32 input, the packed fp32 kernels doing
    // the integer arithmetic: the input quantized to integral floats (the
    // reference's float2int8, in place of the int8 values), the int8 weights
    // as floats (int8f), the pads pad_value_int8(pad_value). Every product is
    // at most 128 * 128 and a window of maxk taps sums to below 2^24 (maxk <
    // 1024), so each partial sum is exact in fp32 in any order, with or
    // without FMA: the sums are the reference's int32 sums. The kernels'
    // stores then apply the reference's epilogue (int8_epilogue's scales; a
    // depth-wise layer's numerics never fuse the bias: sum * scale_in
    // rounded, + bias) and the activation. fp32 outputs only (int8 outputs:
    // 1, the caller's other path).
    template<int P>
    int forward_int8_exact(const Mat& bottom_blob, Mat& top_blob, const float* wf, float scale, const Option& opt) const
    {
        std::vector<float> scale_in, scale_out;
        const int numerics = int8_epilogue(opt, scale_in, scale_out);
        if ((numerics & CONV_INT8_FMA_BIAS) || kernel_w * kernel_h >= 1024)
            return 1;
        // the kernels finish each output as the reference's epilogue does
        // (dw_store); activations past Clip then per value, as the reference
        const bool vec_act = act.type == ACTIVATION_NONE || act.type == ACTIVATION_RELU || act.type == ACTIVATION_LEAKYRELU
                             || act.type == ACTIVATION_CLIP;
        const float* bias = bias_term ? (const float*)bias_data : nullptr;
        int ret = forward_packed(bottom_blob, top_blob, wf, bias, (float)pad_value_int8(pad_value), vec_act ? act : Activation(),
                                 opt, scale_in.data(), scale);
        if (ret != 0)
            return ret;
        if (!vec_act)
        {
            const size_t n = (size_t)top_blob.w * top_blob.h * P;
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int q = 0; q < top_blob.c; q++)
            {
                float* d = (float*)top_blob.data + top_blob.cstep * P * q;
                for (size_t i = 0; i < n; i++)
                    d[i] = act(d[i]);
            }
        }
        return 0;
    }

    // int8 depth-wise on a packed input: fp32 quantized with the layer's one
    // bottom scale and unpacked in one vector pass (as the reference quantizes
    // the unpacked blob; the family's quantize_unpack_int8), then the
    // reference's int8 forward, whose run_int8 is the depth-wise int8 kernel.
    // Without that pass (an int8 or fp16 blob, no fused kernel on the ISA):
    // unpacked first (forward_reference)
    int forward_int8_packed(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int pi = bottom_blob.elempack;
        if (bottom_blob.elemsize != 4u * pi || bottom_blob_int8_scales.empty() || bottom_blob.c * pi != num_output)
            return forward_reference(bottom_blob, top_blob, opt);
        const float scale = bottom_blob_int8_scales[0];
        for (int q = 1; q < num_output; q++)
            if (bottom_blob_int8_scales[q] != scale)
                return forward_reference(bottom_blob, top_blob, opt);
        const int slot = dw_pack_index(pi);
        if (slot > 0 && !int8f[slot].empty() && int8_scale_term <= 100)
        {
            int ret = -1;
            switch (pi)
            {
#if KITE_SIMD_MAX_N >= 16
            case 16:
                ret = forward_int8_exact<16>(bottom_blob, top_blob, int8f[slot].data(), scale, opt);
                break;
#endif
#if KITE_SIMD_MAX_N >= 8
            case 8:
                ret = forward_int8_exact<8>(bottom_blob, top_blob, int8f[slot].data(), scale, opt);
                break;
#endif
            case 4:
                ret = forward_int8_exact<4>(bottom_blob, top_blob, int8f[slot].data(), scale, opt);
                break;
            default:
                break;
            }
            if (ret != 1)
                return ret;
        }
        Mat planar;
        int ret = -1;
        switch (pi)
        {
#if defined(__AVX512F__)
        case 16:
            ret = quantize_unpack_int8<16>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
            break;
#endif
#if defined(__AVX__)
        case 8:
            ret = quantize_unpack_int8<8>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
            break;
#endif
        case 4:
            ret = quantize_unpack_int8<4>(bottom_blob, planar, scale, opt.workspace_allocator, opt.num_threads);
            break;
        default:
            break;
        }
        if (ret == -100)
            return ret;
        if (ret != 0)
            return forward_reference(bottom_blob, top_blob, opt);
        return ConvolutionDepthWise::forward(planar, top_blob, opt);
    }

    int create_pipeline_fp32(const Option& opt)
    {
        int ret = ConvolutionDepthWise::create_pipeline(opt);
        gdirect = ConvDirectWeights();
        if (ret == 0 && !depthwise && weight_data.elemsize == 4u && direct_grouped_fits())
        {
            // groups of 4, 8 or 16 channels in and out: the direct kernel
            // on the packed blobs (conv_direct_planar_cpu.h), no per-group
            // drivers; light mode keeps only its copy of the weights
            const int maxk = kernel_w * kernel_h;
            const int G = num_output / group;
            if (!conv_direct_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output, G * maxk,
                                          G, gdirect))
                return -100;
            act = Activation(activation_type, activation_params);
            if (opt.lightmode)
            {
                weight_data.release();
                weights_released = true;
            }
            return 0;
        }
        if (ret == 0 && !depthwise)
        {
            ret = create_group_ops(opt);
            // light mode: where every group's driver released its slice (its
            // packed copy holds it), the loaded weights go too; the reference
            // fallback and a later create_pipeline rebuild them from the
            // groups (loaded_weights)
            bool all_released = ret == 0 && opt.lightmode && weight_data.elemsize == 4u && !group_ops.empty();
            for (const Layer* op : group_ops)
                all_released = all_released && static_cast<const Convolution*>(op)->weight_data.empty();
            if (all_released)
            {
                weight_data.release();
                weights_released = true;
            }
            return ret;
        }
        for (int i = 0; i < kDwPackCount; i++)
            int8f[i].clear();
        if (ret == 0 && depthwise && weight_data.elemsize == 1u)
        {
            // int8 weights as floats for forward_int8_exact, repacked per elempack
            act = Activation(activation_type, activation_params);
            const int n = num_output * kernel_w * kernel_h;
            std::vector<float> wf((size_t)n);
            const signed char* w8 = weight_data;
            for (int i = 0; i < n; i++)
                wf[(size_t)i] = (float)w8[i];
            if (!dw_repack_weights(wf.data(), num_output, kernel_w * kernel_h, int8f))
                return -100;
            int8f[0].clear(); // planar inputs take the int8 kernel
            return 0;
        }
        if (ret != 0 || weight_data.elemsize != 4u)
            return ret;
        act = Activation(activation_type, activation_params);
        if (!dw_repack_weights(weight_data, num_output, kernel_w * kernel_h, packed))
            return -100;
        return 0;
    }

    int forward_fp32(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int pi = dw_packed_slot(bottom_blob, packed);
        if (pi < 0)
            return forward_reference(bottom_blob, top_blob, opt);
        if (!dw_channels_match(bottom_blob, num_output, "ConvolutionDepthWise", name))
            return -1;
        int ret = forward_packed(bottom_blob, top_blob, packed[pi].data(), bias_term ? (const float*)bias_data : nullptr,
                                 pad_value, act, opt);
        return ret == 1 ? forward_reference(bottom_blob, top_blob, opt) : ret;
    }

    // the packed fp32 kernels on bottom_blob (fp32, elempack P, channels
    // checked): weights w [c/P][maxk][P], bias b or null, pads hold padv;
    // 1 where they do not take the geometry (SAME cropping: the caller runs
    // the reference)
    // (dq, qscale: the int8 path's dequantize scales and input quantization,
    // see depthwise_packed)
    int forward_packed(const Mat& bottom_blob, Mat& top_blob, const float* w, const float* b, float padv,
                       const Activation& fact, const Option& opt, const float* dq = nullptr, float qscale = 0.f) const
    {
        const int P = bottom_blob.elempack;
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
            return 1;
        const int padded_w = bottom_blob.w + pads[0] + pads[1], padded_h = bottom_blob.h + pads[2] + pads[3];
        if (padded_w < extents[0] || padded_h < extents[1])
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d",
                      name.c_str(), bottom_blob.w, bottom_blob.h, padded_w, padded_h, extents[0], extents[1]);
            return -1;
        }
        const int outw = (padded_w - extents[0]) / stride_w + 1;
        const int outh = (padded_h - extents[1]) / stride_h + 1;
        top_blob.create(outw, outh, bottom_blob.c, 4u * P, P, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const DwGeometry g = {kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h};
        // a small map under a wide kernel (proxylessnasnet's 7x7 on 7x7: 6
        // of 7 columns are border windows, each tap bounds-checked): a padded
        // copy first, so that every window runs the fixed-tap blocks
        Mat in = bottom_blob;
        const bool fixed = P >= 4 && kernel_w == kernel_h && (kernel_w == 3 || kernel_w == 5 || kernel_w == 7)
                           && dilation_w == 1 && (stride_w == 1 || stride_w == 2);
        if (fixed && (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0))
        {
            const int ox_lo = std::min(outw, (pads[0] + stride_w - 1) / stride_w);
            const int ox_hi = bottom_blob.w + pads[0] - kernel_w < 0
                                  ? ox_lo
                                  : std::max(ox_lo, std::min(outw, (bottom_blob.w + pads[0] - kernel_w) / stride_w + 1));
            // also stride 1 on narrow vectors (elempack 4 / 8) and rows of at
            // most 32: the bounds-checked border windows of a 28x28 map at
            // elempack 4 cost more than the copy (shufflenet's 60 and
            // shufflenet_v2's 116 channels: 0.85 of the time with the copy;
            // at 64x64, elempack 16 or stride 2 the copy lost)
            // (stride 1 with a quarter of the columns border windows, 5x5 on
            // 14x14x672 at elempack 16, ran 0.54 -> 0.36 ms for 6 layers on a
            // copy, but the copy's workspace raised proxylessnasnet's peak
            // memory by ~0.6 MB, to ncnn's: left out)
            if ((outw - (ox_hi - ox_lo)) * 3 > outw || (stride_w == 1 && P <= 8 && outw <= 32))
            {
                Option opt_ws = opt;
                opt_ws.blob_allocator = opt.workspace_allocator;
                Mat src = bottom_blob;
                if (qscale > 0.f)
                {
                    // the pads take padv as it is: quantize before padding
                    src = Mat();
                    int qret = -1;
                    switch (P)
                    {
#if KITE_SIMD_MAX_N >= 16
                    case 16:
                        qret = quantize_integral<16>(bottom_blob, src, qscale, opt_ws);
                        break;
#endif
#if KITE_SIMD_MAX_N >= 8
                    case 8:
                        qret = quantize_integral<8>(bottom_blob, src, qscale, opt_ws);
                        break;
#endif
                    case 4:
                        qret = quantize_integral<4>(bottom_blob, src, qscale, opt_ws);
                        break;
                    default:
                        break;
                    }
                    if (qret != 0)
                        return qret == -100 ? -100 : 1;
                    qscale = 0.f;
                }
                copy_make_border(src, in, pads[2], pads[3], pads[0], pads[1], BORDER_CONSTANT, padv, opt_ws);
                if (in.empty())
                    return -100;
                pads[0] = pads[1] = pads[2] = pads[3] = 0;
            }
        }
        switch (P)
        {
#if defined(__AVX512F__)
        case 16:
            depthwise_packed_any<16>(in, top_blob, w, b, g, pads[0], pads[2], padv, fact, opt.num_threads, dq, qscale);
            break;
#endif
#if defined(__AVX__)
        case 8:
            depthwise_packed_any<8>(in, top_blob, w, b, g, pads[0], pads[2], padv, fact, opt.num_threads, dq, qscale);
            break;
#endif
        case 4:
            depthwise_packed_any<4>(in, top_blob, w, b, g, pads[0], pads[2], padv, fact, opt.num_threads, dq, qscale);
            break;
        default:
            depthwise_rows(bottom_blob, top_blob, w, b, g, pads, padv, fact, opt.num_threads);
            break;
        }
        return 0;
    }

#if KITE_CPU_CONV_FP16
    // arm82 with fp16 storage and fp16 arithmetic: channels that pack by 8
    // run the pack-8 fp16 depth-wise kernel of arm/conv_fp16_arm.h
    int create_pipeline_fp16(const Option& opt)
    {
        support_fp16_storage = false;
        fp16w = ConvDwFp16Weights();
        if (!depthwise || weight_data.elemsize != 4u || int8_scale_term != 0 || !opt.use_fp16_storage || !opt.use_fp16_arithmetic)
            return 0;
        int ret = conv_dw_fp16_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output,
                                            kernel_w * kernel_h, fp16w);
        support_fp16_storage = fp16w.C != 0;
        act16 = Activation(activation_type, activation_params);
        return ret;
    }

    int forward_fp16(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (bottom_blob.dims != 3 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
        {
            Mat f;
            int ret = conv_fp16_to_fp32(bottom_blob, f, opt);
            return ret != 0 ? ret : forward_fp32(f, top_blob, opt);
        }
        const ConvFp16Geometry g = {kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h};
        const std::string what = "ConvolutionDepthWise '" + name + "'";
        Mat padded;
        int ret = conv_fp16_begin(bottom_blob, padded, top_blob, pads, pad_value, fp16w.C, fp16w.C, g, what.c_str(), opt);
        if (ret != 0)
            return ret;
        conv_dw_fp16_forward(padded, top_blob, fp16w, g, act16, opt.num_threads);
        return 0;
    }

    ConvDwFp16Weights fp16w;
    Activation act16;
#endif

    // Grouped layers (1 < group, not depth-wise; also depth-wise multipliers
    // and group 1): fp32 runs one Convolution driver of this ISA level per
    // group (its packed GEMM / 1x1 / Winograd paths), each on its slice of the
    // input channels, writing straight into its slice of the output channels
    // (zero-copy views where the group's channel counts divide the elempacks;
    // otherwise the input is repacked to the widest elempack that divides
    // them and the output takes that elempack). int8 runs the family's packed
    // int8 GEMM per group inside run_int8 (bit-identical to the reference).
    // Groups run side by side, one thread each, when there are at least as
    // many as threads (dynamic schedule); else one after another with all
    // threads (shufflenet's 3 groups on 2 threads: 3.9 against 6.5 ms min
    // when the groups ran one after another).
    int create_group_ops(const Option& opt)
    {
        delete_group_ops();
        group_int8.clear();
        const int maxk = kernel_w * kernel_h;
        const int cout_g = num_output / group;
        const int cin_g = weight_data_size / (num_output * maxk);
        const int wsize_g = cout_g * cin_g * maxk;
        if (weight_data.elemsize == 1u)
        {
            group_int8.resize(group);
            for (int g = 0; g < group; g++)
                conv_int8_pack_weights((const signed char*)weight_data + (size_t)g * wsize_g, cout_g, cin_g * maxk, group_int8[g]);
            return 0;
        }
        if (weight_data.elemsize != 4u)
            return 0;
        ParamDict pd;
        pd.set(PARAM_NUM_OUTPUT, cout_g);
        pd.set(PARAM_KERNEL_W, kernel_w);
        pd.set(PARAM_KERNEL_H, kernel_h);
        pd.set(PARAM_DILATION_W, dilation_w);
        pd.set(PARAM_DILATION_H, dilation_h);
        pd.set(PARAM_STRIDE_W, stride_w);
        pd.set(PARAM_STRIDE_H, stride_h);
        pd.set(PARAM_PAD_LEFT, pad_left);
        pd.set(PARAM_PAD_RIGHT, pad_right);
        pd.set(PARAM_PAD_TOP, pad_top);
        pd.set(PARAM_PAD_BOTTOM, pad_bottom);
        pd.set(PARAM_PAD_VALUE, pad_value);
        pd.set(PARAM_BIAS_TERM, bias_term);
        pd.set(PARAM_WEIGHT_DATA_SIZE, wsize_g);
        pd.set(PARAM_ACTIVATION_TYPE, activation_type);
        if (!activation_params.empty())
            pd.set(PARAM_ACTIVATION_PARAMS, activation_params);
        // the groups take fp32 blobs (this layer does not declare fp16 storage)
        Option o = opt;
        o.use_fp16_storage = false;
        // groups of at most 8 input and 8 output channels: no Winograd (its
        // weights are 16/9 to 4x the 3x3 ones, regnety_400m's 8-channel
        // groups held 1.5 MB more than the GEMM's; ncnn's groups skip it there too)
        if (cin_g <= 8 && cout_g <= 8)
            o.use_winograd_convolution = false;
        // without an output shape hint (kite's converters write none) groups
        // that take Winograd keep their GEMM copy too (no light mode for
        // them): a small map then runs the GEMM (resnext50_32x4d's 7x7 groups
        // of 32, where F(6,3) computes 4 tiles of 6x6 for 49 pixels: 1.0x
        // ncnn's CPU time), a large one Winograd; the loaded weights and the
        // GEMM copy stay beside the Winograd ones (2.4 MB more for each of
        // resnext50's three such layers; a forward-time choice that keeps one
        // copy is left to do)
        const bool hinted = !top_shapes.empty() && top_shapes[0].dims == 3 && top_shapes[0].w > 0 && top_shapes[0].h > 0;
        if (o.use_winograd_convolution && !hinted && kernel_w == 3 && kernel_h == 3 && stride_w == 1 && stride_h == 1
            && dilation_w == 1 && dilation_h == 1)
            o.lightmode = false;
        for (int g = 0; g < group; g++)
        {
            Layer* op = Convolution_cpu_layer_creator(nullptr);
            group_ops.push_back(op);
            op->name = name;
            op->isa = isa;
            op->bottom_shapes = bottom_shapes;
            op->top_shapes = top_shapes;
            if (!op->bottom_shapes.empty() && op->bottom_shapes[0].dims == 3)
                op->bottom_shapes[0].c = cin_g;
            if (!op->top_shapes.empty() && op->top_shapes[0].dims == 3)
                op->top_shapes[0].c = cout_g;
            Mat weights[2];
            weights[0] = weight_data.range(g * wsize_g, wsize_g);
            if (bias_term)
                weights[1] = bias_data.range(g * cout_g, cout_g);
            int ret = op->load_param(pd);
            if (ret == 0)
                ret = op->load_model(ModelBinFromMatArray(weights, bias_term ? 2 : 1));
            if (ret == 0)
                ret = op->create_pipeline(o);
            if (ret != 0)
                return ret;
        }
        return 0;
    }

    void delete_group_ops()
    {
        for (Layer* op : group_ops)
            delete op;
        group_ops.clear();
    }

    // an allocator used from several threads at once: a lock around another
    // (every block it hands out is freed before it goes: forward_grouped's
    // groups free their buffers before they return)
    class LockedAllocator : public Allocator
    {
    public:
        explicit LockedAllocator(Allocator* a) : a(a) {}
        void* fastMalloc(size_t size) override
        {
            std::lock_guard<std::mutex> l(m);
            return a->fastMalloc(size);
        }
        void fastFree(void* ptr) override
        {
            std::lock_guard<std::mutex> l(m);
            a->fastFree(ptr);
        }

    private:
        Allocator* a;
        std::mutex m;
    };

    // groups side by side (one thread each) or one after another
    static bool groups_across_threads(int groups, int num_threads)
    {
        return num_threads > 1 && groups >= num_threads;
    }

    // groups of G = 4, 8 or 16 channels in and out that a vector of this ISA
    // holds, strides the kernel's pixel steps take at every input elempack
    bool direct_grouped_fits() const
    {
        const int maxk = kernel_w * kernel_h;
        const int G = num_output / group;
        if (group <= 1 || num_output % group != 0 || (int64_t)weight_data_size != (int64_t)num_output * G * maxk)
            return false;
        if ((G != 4 && G != 8 && G != 16) || G > kMaxPack || maxk > 25)
            return false;
        return (stride_w == 1 || stride_w == 2) && stride_w * kMaxPack <= 32;
    }

    int forward_grouped_direct(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int G = gdirect.P;
        if (bottom_blob.dims != 3 || bottom_blob.elemsize != 4u * bottom_blob.elempack)
            return forward_reference(bottom_blob, top_blob, opt);
        if (bottom_blob.c * bottom_blob.elempack != num_output)
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input has %d channels, the weights expect %d (group %d x %d)", name.c_str(),
                      bottom_blob.c * bottom_blob.elempack, num_output, group, G);
            return -1;
        }
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
            return forward_reference(bottom_blob, top_blob, opt);
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        const int padded_w = bottom_blob.w + pads[0] + pads[1], padded_h = bottom_blob.h + pads[2] + pads[3];
        if (padded_w < extents[0] || padded_h < extents[1])
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d",
                      name.c_str(), bottom_blob.w, bottom_blob.h, padded_w, padded_h, extents[0], extents[1]);
            return -1;
        }
        const int outw = (padded_w - extents[0]) / stride_w + 1;
        const int outh = (padded_h - extents[1]) / stride_h + 1;
        Option opt_ws = opt;
        opt_ws.blob_allocator = opt.workspace_allocator;
        // the input at an elempack that holds whole groups, padded
        Mat in = bottom_blob;
        if (in.elempack % G != 0)
        {
            convert_packing(bottom_blob, in, G, opt_ws);
            if (in.empty())
                return -100;
        }
        if (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0)
        {
            Mat padded;
            copy_make_border(in, padded, pads[2], pads[3], pads[0], pads[1], BORDER_CONSTANT, pad_value, opt_ws);
            if (padded.empty())
                return -100;
            in = padded;
        }
        // the output at the elempack the next layer takes (the widest that
        // divides num_output) where it holds whole groups
        int oe = G;
        for (int p = kMaxPack; p > G; p /= 2)
            if (num_output % p == 0)
            {
                oe = p;
                break;
            }
        top_blob.create(outw, outh, num_output / oe, 4u * oe, oe, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        switch (G)
        {
#if KITE_SIMD_MAX_N >= 16
        case 16:
            conv_direct_grouped_forward<16>(in, top_blob, gdirect, kernel_w, kernel_h, dilation_w, dilation_h, stride_w,
                                            stride_h, act, opt.num_threads);
            break;
#endif
#if KITE_SIMD_MAX_N >= 8
        case 8:
            conv_direct_grouped_forward<8>(in, top_blob, gdirect, kernel_w, kernel_h, dilation_w, dilation_h, stride_w,
                                           stride_h, act, opt.num_threads);
            break;
#endif
        default:
            conv_direct_grouped_forward<4>(in, top_blob, gdirect, kernel_w, kernel_h, dilation_w, dilation_h, stride_w,
                                           stride_h, act, opt.num_threads);
            break;
        }
        return 0;
    }

    int forward_grouped(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        if (gdirect.M != 0)
            return forward_grouped_direct(bottom_blob, top_blob, opt);
        const int P = bottom_blob.elempack;
        if (group_ops.empty() || bottom_blob.dims != 3 || bottom_blob.elemsize != 4u * P)
            return forward_reference(bottom_blob, top_blob, opt);
        const int maxk = kernel_w * kernel_h;
        const int cout_g = num_output / group;
        const int cin_g = weight_data_size / (num_output * maxk);
        if (bottom_blob.c * P != cin_g * group)
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input has %d channels, the weights expect %d (group %d x %d)", name.c_str(),
                      bottom_blob.c * P, cin_g * group, group, cin_g);
            return -1;
        }
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        const int padded_w = bottom_blob.w + pads[0] + pads[1], padded_h = bottom_blob.h + pads[2] + pads[3];
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
            return forward_reference(bottom_blob, top_blob, opt);
        if (padded_w < extents[0] || padded_h < extents[1])
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d",
                      name.c_str(), bottom_blob.w, bottom_blob.h, padded_w, padded_h, extents[0], extents[1]);
            return -1;
        }
        const int outw = (padded_w - extents[0]) / stride_w + 1;
        const int outh = (padded_h - extents[1]) / stride_h + 1;

        // the input's elempack: the widest (up to the blob's) that divides a group's channels
        int ip = P;
        while (ip > 1 && cin_g % ip != 0)
            ip = ip > 4 ? ip / 2 : 1;
        Mat in = bottom_blob;
        if (ip != P)
        {
            Option o = opt;
            o.blob_allocator = opt.workspace_allocator;
            convert_packing(bottom_blob, in, ip, o);
            if (in.empty())
                return -100;
        }
        // the output's: what the per-group driver writes (the widest this ISA has that divides cout_g)
        int op = 1;
        for (int p = kMaxPack; p >= 4; p /= 2)
            if (cout_g % p == 0)
            {
                op = p;
                break;
            }
        top_blob.create(outw, outh, num_output / op, 4u * op, op, opt.blob_allocator);
        if (top_blob.empty())
            return -100;

        const bool across = groups_across_threads(group, opt.num_threads);
        Option o = opt;
        // groups side by side allocate from the caller's allocators behind a
        // lock (a pool need not be thread-safe): their work buffers come back
        // to the workspace pool for the next group and inference, where
        // malloc'ed from each thread they stayed resident in malloc's
        // per-thread heaps (regnety_400m at 2 threads: 5 MB above 1 thread)
        LockedAllocator workspace(opt.workspace_allocator), blobs(opt.blob_allocator);
        if (across)
        {
            o.num_threads = 1;
            o.workspace_allocator = opt.workspace_allocator ? &workspace : nullptr;
            o.blob_allocator = opt.blob_allocator ? &blobs : nullptr;
        }
        std::vector<int> rets(group, 0);
        // one after another: no enclosing parallel region at all (an inactive
        // `if (false)` region still makes every parallel region of the group's
        // driver a nested one, which libgomp serves with a fresh team of
        // threads each time: shufflenet at 16 threads took 65 ms against 5 ms
        // at 1 thread on the Xeon)
        if (across)
        {
            #pragma omp parallel for num_threads(opt.num_threads) schedule(dynamic)
            for (int g = 0; g < group; g++)
                rets[g] = forward_group(g, in, ip, cin_g, top_blob, op, cout_g, o);
        }
        else
        {
            for (int g = 0; g < group; g++)
                rets[g] = forward_group(g, in, ip, cin_g, top_blob, op, cout_g, o);
        }
        for (int r : rets)
            if (r != 0)
                return r;
        return 0;
    }

    int forward_group(int g, const Mat& in, int ip, int cin_g, Mat& top_blob, int op, int cout_g, const Option& opt) const
    {
        const Mat in_g = in.channel_range(g * cin_g / ip, cin_g / ip);
        Mat out_g = top_blob.channel_range(g * cout_g / op, cout_g / op);
        const void* place = out_g.data;
        int ret = group_ops[g]->forward(in_g, out_g, opt);
        if (ret != 0 || out_g.data == place)
            return ret;
        // a path that made its own output blob: copy it into place
        Mat t = out_g;
        if (t.elempack != op || t.elemsize != 4u * op)
        {
            Option o = opt;
            o.blob_allocator = opt.workspace_allocator;
            convert_packing(out_g, t, op, o);
        }
        if (t.dims != 3 || t.w != top_blob.w || t.h != top_blob.h || t.c != cout_g / op || t.elemsize != 4u * op)
        {
            KITE_LOGE("ConvolutionDepthWise '%s': group %d produced a %dx%dx%d output, expected %dx%dx%d", name.c_str(), g, t.w,
                      t.h, t.c * t.elempack, top_blob.w, top_blob.h, cout_g);
            return -1;
        }
        for (int q = 0; q < t.c; q++)
            memcpy(top_blob.channel(g * cout_g / op + q).data, t.channel(q).data, (size_t)t.w * t.h * t.elemsize);
        return 0;
    }

    // int8 grouped: the int32 sums of each group from its packed weights,
    // through the reference's epilogue (job.numerics), into its output slice
    void run_int8_grouped(const ConvInt8Job& job, int num_threads) const
    {
        const int G = job.group;
        if ((int)group_int8.size() != G || job.out_elempack != 1 || job.in.c % G != 0 || job.out.c % G != 0)
            return ConvolutionDepthWise::run_int8(job, num_threads);
        const int cin_g = job.in.c / G, cout_g = job.out.c / G;
        const int K = cin_g * kernel_w * kernel_h;
        if (group_int8[0].M != cout_g || group_int8[0].K != K)
            return ConvolutionDepthWise::run_int8(job, num_threads);
        const size_t out_es = job.scale_out ? 1u : 4u;
        const bool across = groups_across_threads(G, num_threads);
        // as in forward_grouped: no enclosing region unless the groups share the threads
        auto run_group = [&](int g) {
            ConvInt8Job s = job;
            s.group = 1;
            s.in.data = (signed char*)job.in.data + (size_t)g * cin_g * job.in.cstep;
            s.in.c = cin_g;
            s.out.data = (unsigned char*)job.out.data + (size_t)g * cout_g * job.out.cstep * out_es;
            s.out.c = cout_g;
            s.weight = job.weight + (size_t)g * cout_g * K;
            s.bias = job.bias ? job.bias + g * cout_g : nullptr;
            s.scale_in = job.scale_in + g * cout_g;
            s.scale_out = job.scale_out ? job.scale_out + g * cout_g : nullptr;
            conv_int8_gemm(s, group_int8[g], across ? 1 : num_threads);
        };
        if (across)
        {
            #pragma omp parallel for num_threads(num_threads) schedule(dynamic)
            for (int g = 0; g < G; g++)
                run_group(g);
        }
        else
        {
            for (int g = 0; g < G; g++)
                run_group(g);
        }
    }

    // the kernel create_pipeline prepared (kernel_path): depth-wise
    // fp32 / fp16 / int8, or grouped: the per-group Convolution driver's path
    // ("grouped-gemm", "grouped-winograd43", ...) or the per-group int8 GEMM
    void choose_path()
    {
        if (depthwise)
        {
            if (weight_data.elemsize == 1u)
                path = int8f[1].empty() && int8f[2].empty() && int8f[3].empty() ? "depthwise-int8" : "depthwise-int8-packed";
#if KITE_CPU_CONV_FP16
            else if (fp16w.C != 0)
                path = "depthwise-fp16";
#endif
            else
                path = packed[0].empty() && packed[1].empty() ? "reference" : "depthwise";
            return;
        }
        if (weight_data.elemsize == 1u)
            path = group_int8.empty() ? "reference" : "grouped-int8";
        else if (gdirect.M != 0)
            path = "grouped-direct";
        else if (!group_ops.empty() && group_ops[0]->kernel_path())
            path = std::string("grouped-") + group_ops[0]->kernel_path();
        else
            path = "reference";
    }

    std::string path;
    bool depthwise = true;
    bool weights_released = false;                 // grouped, light mode: group_ops hold the weights
    std::vector<Layer*> group_ops;                 // fp32 grouped: one Convolution driver per group
    std::vector<ConvInt8PackedWeights> group_int8; // int8 grouped: packed weights per group
    ConvDirectWeights gdirect;                     // fp32 grouped, groups of 4/8/16: the direct kernel's

public:
    Mat loaded_weights() const override
    {
        if (!weights_released)
            return weight_data;
        if (gdirect.M != 0)
        {
            // unpacked from the direct kernel's [M / G][K][G]
            const int M = gdirect.M, K = gdirect.K, G = gdirect.P;
            Mat w((int)((size_t)M * K), (size_t)4u);
            if (w.empty())
                return w;
            for (int m = 0; m < M; m++)
                for (int k = 0; k < K; k++)
                    ((float*)w)[(size_t)m * K + k] = gdirect.w[(size_t)(m / G) * K * G + (size_t)k * G + m % G];
            return w;
        }
        // the groups' slices, one after another
        Mat w(weight_data_size, (size_t)4u);
        if (w.empty())
            return w;
        size_t at = 0;
        for (const Layer* op : group_ops)
        {
            const Mat s = static_cast<const Convolution*>(op)->loaded_weights();
            const size_t n = (size_t)s.w * s.h * s.d * s.c;
            if (s.empty() || at + n > (size_t)weight_data_size)
                return Mat();
            memcpy((float*)w + at, s.data, n * sizeof(float));
            at += n;
        }
        return at == (size_t)weight_data_size ? w : Mat();
    }

private:
    // shapes the packed kernel does not take: the reference on an elempack-1 copy
    int forward_reference(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        return dw_forward_unpacked(bottom_blob, opt, [&](const Mat& in) { return ConvolutionDepthWise::forward(in, top_blob, opt); });
    }

    FastBuffer<float> packed[kDwPackCount];
    FastBuffer<float> int8f[kDwPackCount]; // int8 depth-wise: the int8 weights as floats, as packed
    Activation act;
};

DEFINE_LAYER_CREATOR(ConvolutionDepthWise_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
