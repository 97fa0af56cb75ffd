// Deconvolution for the CPU (group 1, fp32): the transposed convolution as a GEMM
// then col2im. The weights are rearranged once into an (outch * kh * kw) x
// inch matrix and packed for the SGEMM (sgemm_cpu.h); per inference
//   cols(o, ky, kx, pixel) = sum_c W(o, c, ky, kx) in(c, pixel)
// is one packed GEMM over all input pixels, then each output channel starts
// from its bias and adds every tap's column plane at its strided place (the
// runs of a tap row are clipped once, not tested per element), activation
// last. The reference does the parameter checks and output sizing.
#include "deconvolution.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "cpu/conv_vec_cpu.h"
#include "cpu/sgemm_cpu.h"

#include <vector>

namespace kite {
namespace KITE_ISA_NS {

class Deconvolution_cpu : public Deconvolution
{
public:
    const char* kernel_path() const override
    {
        return packed.M != 0 ? "sgemm-col2im" : "reference";
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
        int ret = Deconvolution::create_pipeline(opt);
        if (ret != 0 || group != 1 || weight_data.empty() || weight_data.elemsize != 4u)
            return ret;
        const int maxk = kernel_w * kernel_h;
        const int inch = weight_data_size / (num_output * maxk);
        const float* w = weight_data;
        // A(o * maxk + k, c) = W[o][c][k]
        FastBuffer<float> t;
        if (!t.resize((size_t)num_output * maxk * inch))
            return -100;
        for (int o = 0; o < num_output; o++)
            for (int c = 0; c < inch; c++)
                for (int k = 0; k < maxk; k++)
                    t[((size_t)o * maxk + k) * inch + c] = w[((size_t)o * inch + c) * maxk + k];
        if (!pack_a(MatView{t.data(), (long)inch, 1}, num_output * maxk, inch, packed))
            return -100;
        // light mode (as ncnn): the loaded weights go, the packed copy holds
        // them exactly; the reference fallback and a later create_pipeline
        // rebuild them (loaded_weights)
        if (opt.lightmode)
        {
            weight_data.release();
            weights_released = true;
        }
        return 0;
    }

    Mat loaded_weights() const override
    {
        if (!weights_released)
            return weight_data;
        Mat w(weight_data_size, (size_t)4u);
        if (w.empty())
            return w;
        // A(o * maxk + k, c) = W[o][c][k]: A unpacked as rows of inch, then
        // each output channel's [k][c] block transposed to [c][k]
        const int maxk = kernel_w * kernel_h, inch = packed.K;
        std::vector<float> t((size_t)packed.M * inch);
        unpack_a(packed, t.data(), inch, 1);
        float* d = w;
        for (int o = 0; o < num_output; o++)
            for (int c = 0; c < inch; c++)
                for (int k = 0; k < maxk; k++)
                    d[((size_t)o * inch + c) * maxk + k] = t[((size_t)o * maxk + k) * inch + c];
        return w;
    }

protected:
    int run_fp32(const ConvView& in, const ConvView& out, const ConvGeometry& g, const Activation& act,
                 const Option& opt) const override
    {
        if (group != 1 || packed.M == 0 || packed.K != in.c || in.d != 1 || out.d != 1)
            return Deconvolution::run_fp32(in, out, g, act, opt);
        const int maxk = kernel_w * kernel_h;
        const int N = in.w * in.h;
        Mat cols;
        cols.create(N, packed.M, 4u, opt.workspace_allocator);
        if (cols.empty())
            return -100;
        const GemmEpilogue none;
        int ret = sgemm(packed, MatView{(const float*)in.data, (long)in.cstep, 1}, N, cols, (long)N, 1, none, opt);
        if (ret != 0)
            return ret;
        const float* bias = bias_term ? (const float*)bias_data : nullptr;
        const int outw = out.w, outh = out.h;

        #pragma omp parallel for num_threads(opt.num_threads)
        for (int o = 0; o < out.c; o++)
        {
            float* outp = (float*)out.data + out.cstep * o;
            const float b = bias ? bias[o] : 0.f;
            for (size_t i = 0; i < (size_t)outw * outh; i++)
                outp[i] = b;
            for (int k = 0; k < maxk; k++)
            {
                const int ky = k / kernel_w, kx = k % kernel_w;
                const float* src = (const float*)cols + ((size_t)o * maxk + k) * N;
                // output column of input column ix: ix * stride_w + ox0
                const int ox0 = kx * g.dilation_w - g.pad_left;
                const int ix0 = ox0 < 0 ? (-ox0 + g.stride_w - 1) / g.stride_w : 0;
                const int ix1 = outw - 1 - ox0 < 0 ? 0 : std::min(in.w, (outw - 1 - ox0) / g.stride_w + 1);
                for (int iy = 0; iy < in.h; iy++)
                {
                    const int oy = iy * g.stride_h + ky * g.dilation_h - g.pad_top;
                    if (oy < 0 || oy >= outh)
                        continue;
                    const float* s = src + (size_t)iy * in.w;
                    float* d = outp + (size_t)oy * outw;
                    if (g.stride_w == 1)
                    {
                        for (int ix = ix0; ix < ix1; ix++)
                            d[ix + ox0] += s[ix];
                    }
                    else
                    {
                        for (int ix = ix0; ix < ix1; ix++)
                            d[ix * g.stride_w + ox0] += s[ix];
                    }
                }
            }
            if (act.type != ACTIVATION_NONE)
            {
                simd::for_widths(outw * outh, [&](auto v, int i) {
                    typedef decltype(v) V;
                    store_activated<V::N>(outp + i, V::load(outp + i), act);
                });
            }
        }
        return 0;
    }

private:
    PackedA packed;
    bool weights_released = false; // light mode released weight_data (packed holds it)
};

DEFINE_LAYER_CREATOR(Deconvolution_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
