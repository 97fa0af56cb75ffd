// ConvolutionDepthWise for the CPU: the depth-wise case (group == channels ==
// num_output) on packed blobs. Each packed element holds P channels, so one
// vector FMA per tap computes P channels at once; the weights are repacked in
// create_pipeline to [channels/P][kh*kw][P]. The output keeps the input's
// elempack; elempack 1 (channel counts that do not pack, shufflenet_v2's 58)
// runs vectorised along output rows (conv_dw_rows_cpu.h). int8 depth-wise
// (elempack 1) takes the reference's scales and the family's depth-wise int8
// kernel (cpu/conv_int8_cpu.h). On arm82 with fp16 storage and fp16
// arithmetic, channels that pack by 8 run arm/conv_fp16_arm.h's pack-8 fp16
// kernel. Grouped (non depth-wise) convolution and dynamic weights use the
// reference.
#include "convolutiondepthwise.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
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

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

namespace {

// in: unpadded, elempack P, read as if padded by pad_left/pad_top (and enough
// on the right/bottom for out's size) with pad_value; out: elempack P; weight
// [c/P][maxk][P]; bias [c] or null. Windows wholly inside the input run
// without bounds checks, four outputs at a time; border windows check each tap.
// No padded copy: a depth-wise layer does 9 FMAs per element, so copying the
// blob first would cost about as much as the layer.
template<int P>
void depthwise_packed(const Mat& in, Mat& out, const float* weight, const float* bias, const DwGeometry& g,
                      int pad_left, int pad_top, float pad_value, const Activation& act, int num_threads)
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
    const bool wide = R > 1 && g.stride_w == 1;
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

    #pragma omp parallel for num_threads(num_threads)
    for (int q = 0; q < out.c; q++)
    {
        const float* src = (const float*)in.data + in.cstep * P * q;
        float* dst = (float*)out.data + out.cstep * P * q;
        const float* wq = weight + (size_t)maxk * P * q;
        const float* wwq = wide ? wide_wb.data() + (size_t)q * (maxk + 1) * W : nullptr; // [maxk][W], then bias
        const typename V::T b = bias ? V::load(bias + q * P) : V::zero();
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
            store_activated<P>(dst + (size_t)ox * P, a, act);
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
                store_activated<P>(d, a0, act);
                store_activated<P>(d + P, a1, act);
                store_activated<P>(d + 2 * P, a2, act);
                store_activated<P>(d + 3 * P, a3, act);
            }
            for (; ox < ox_hi; ox++)
            {
                const float* s = row + (size_t)(ox * g.stride_w - pad_left) * P;
                typename V::T a = b;
                for (int k = k0; k < k1; k++)
                    a = V::fmadd(V::load(s + (o[k] - obase)), V::load(wq + k * P), a);
                store_activated<P>(dst + (size_t)ox * P, a, act);
            }
            for (ox = ox_hi; ox < outw; ox++)
                border(ox, iy0);
        }
    }
}

} // namespace

class ConvolutionDepthWise_cpu : public ConvolutionDepthWise
{
public:
    ConvolutionDepthWise_cpu()
    {
        support_packing = true;
    }

    bool accept() const override
    {
        return !dynamic_weight && group == num_output && weight_data_size == num_output * kernel_w * kernel_h;
    }

    int load_param(const ParamDict& pd) override
    {
        int ret = ConvolutionDepthWise::load_param(pd);
        support_packing = int8_scale_term == 0; // int8 blobs stay elempack 1
        return ret;
    }

    int create_pipeline(const Option& opt) override
    {
        int ret = create_pipeline_fp32(opt);
#if KITE_CPU_CONV_FP16
        if (ret == 0)
            ret = create_pipeline_fp16(opt);
#endif
        return ret;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
#if KITE_CPU_CONV_FP16
        if (fp16w.C != 0 && bottom_blob.elembits() == 16)
            return forward_fp16(bottom_blob, top_blob, opt);
#endif
        return forward_fp32(bottom_blob, top_blob, opt);
    }

    using ConvolutionDepthWise::forward;

protected:
    void run_int8(const ConvInt8Job& job, int num_threads) const override
    {
        if (job.group != job.in.c || job.group != job.out.c || job.in.d != 1 || job.out.d != 1)
            return ConvolutionDepthWise::run_int8(job, num_threads);
        conv_int8_depthwise(job, num_threads);
    }

private:
    int create_pipeline_fp32(const Option& opt)
    {
        int ret = ConvolutionDepthWise::create_pipeline(opt);
        if (ret != 0 || weight_data.elemsize != 4u)
            return ret;
        act = Activation(activation_type, activation_params);
        dw_repack_weights(weight_data, num_output, kernel_w * kernel_h, packed);
        return 0;
    }

    int forward_fp32(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int P = bottom_blob.elempack;
        const int pi = dw_packed_slot(bottom_blob, packed);
        if (pi < 0)
            return forward_reference(bottom_blob, top_blob, opt);
        if (!dw_channels_match(bottom_blob, num_output, "ConvolutionDepthWise", name))
            return -1;
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
        {
            return forward_reference(bottom_blob, top_blob, opt);
        }
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
        const float* w = packed[pi].data();
        const float* b = bias_term ? (const float*)bias_data : nullptr;
        switch (P)
        {
#if defined(__AVX512F__)
        case 16:
            depthwise_packed<16>(bottom_blob, top_blob, w, b, g, pads[0], pads[2], pad_value, act, opt.num_threads);
            break;
#endif
#if defined(__AVX__)
        case 8:
            depthwise_packed<8>(bottom_blob, top_blob, w, b, g, pads[0], pads[2], pad_value, act, opt.num_threads);
            break;
#endif
        case 4:
            depthwise_packed<4>(bottom_blob, top_blob, w, b, g, pads[0], pads[2], pad_value, act, opt.num_threads);
            break;
        default:
            depthwise_rows(bottom_blob, top_blob, w, b, g, pads, pad_value, act, opt.num_threads);
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
        if (weight_data.elemsize != 4u || int8_scale_term != 0 || !opt.use_fp16_storage || !opt.use_fp16_arithmetic)
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

    // shapes the packed kernel does not take: the reference on an elempack-1 copy
    int forward_reference(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        return dw_forward_unpacked(bottom_blob, opt, [&](const Mat& in) { return ConvolutionDepthWise::forward(in, top_blob, opt); });
    }

    std::vector<float> packed[kDwPackCount];
    Activation act;
};

DEFINE_LAYER_CREATOR(ConvolutionDepthWise_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
