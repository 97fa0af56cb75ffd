// Convolution for ARM: the input (1x1 stride 1) or its im2col matrix times the
// weights packed 4 output channels at a time (sgemm_arm.h). Compiled once per
// ARM level. fp32, elempack 1; the reference takes int8, dynamic weights,
// non-2-D inputs and negative (cropping) SAME padding.
#include "convolution.h"

#include "arm/sgemm_arm.h"
#include "common/conv_kernel.h"

#include <cstring>

namespace kite {
namespace KITE_ISA_NS {

class Convolution_arm : public Convolution
{
public:
    bool accept() const override
    {
        return !dynamic_weight && int8_scale_term == 0;
    }

    int create_pipeline(const Option& opt) override
    {
        int ret = Convolution::create_pipeline(opt);
        if (ret != 0 || weight_data.elemsize != 4u)
            return ret;
        pack_a4((const float*)weight_data, num_output, weight_data_size / num_output, packed_weight);
        act = Activation(activation_type, activation_params);
        return 0;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (bottom_blob.dims != 3 || bottom_blob.elempack != 1 || bottom_blob.elemsize != 4u || packed_weight.M == 0)
            return Convolution::forward(bottom_blob, top_blob, opt);
        const int maxk = kernel_w * kernel_h;
        const int num_input = weight_data_size / (num_output * maxk);
        if (bottom_blob.c != num_input)
        {
            KITE_LOGE("Convolution '%s': input has %d channels, the weights expect %d", name.c_str(), bottom_blob.c, num_input);
            return -1;
        }
        const int ext_w = conv_kernel_extent(kernel_w, dilation_w), ext_h = conv_kernel_extent(kernel_h, dilation_h);
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
            return Convolution::forward(bottom_blob, top_blob, opt);
        const int w = bottom_blob.w + pads[0] + pads[1], h = bottom_blob.h + pads[2] + pads[3];
        if (w < ext_w || h < ext_h)
            return Convolution::forward(bottom_blob, top_blob, opt); // the reference reports it

        Mat padded = bottom_blob;
        if (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0)
        {
            Option opt_ws = opt;
            opt_ws.blob_allocator = opt.workspace_allocator;
            copy_make_border(bottom_blob, padded, pads[2], pads[3], pads[0], pads[1], BORDER_CONSTANT, pad_value, opt_ws);
            if (padded.empty())
                return -100;
        }
        const int outw = (w - ext_w) / stride_w + 1;
        const int outh = (h - ext_h) / stride_h + 1;
        top_blob.create(outw, outh, num_output, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const int N = outw * outh;
        const float* bias = bias_term ? (const float*)bias_data : nullptr;
        if (maxk == 1 && stride_w == 1 && stride_h == 1)
        {
            sgemm_a4(packed_weight, (const float*)padded.data, (long)padded.cstep, N, (float*)top_blob.data, (long)top_blob.cstep,
                     bias, act, opt);
            return 0;
        }

        // row (q, ky, kx) of the im2col matrix: the input pixels that tap meets
        const int K = num_input * maxk;
        Mat col(N, K, 4u, opt.workspace_allocator);
        if (col.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < num_input; q++)
        {
            const float* plane = padded.channel(q);
            float* dst = (float*)col.data + (size_t)q * maxk * N;
            for (int ky = 0; ky < kernel_h; ky++)
            {
                for (int kx = 0; kx < kernel_w; kx++)
                {
                    const float* src = plane + (size_t)ky * dilation_h * w + kx * dilation_w;
                    for (int oy = 0; oy < outh; oy++, dst += outw)
                    {
                        const float* s = src + (size_t)oy * stride_h * w;
                        if (stride_w == 1)
                            memcpy(dst, s, outw * sizeof(float));
                        else
                            for (int ox = 0; ox < outw; ox++)
                                dst[ox] = s[ox * stride_w];
                    }
                }
            }
        }
        sgemm_a4(packed_weight, (const float*)col.data, (long)N, N, (float*)top_blob.data, (long)top_blob.cstep, bias, act, opt);
        return 0;
    }

    using Convolution::forward;

private:
    PackedA4 packed_weight;
    Activation act;
};

DEFINE_LAYER_CREATOR(Convolution_arm)

} // namespace KITE_ISA_NS
} // namespace kite
