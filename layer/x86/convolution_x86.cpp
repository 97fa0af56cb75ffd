// Convolution for x86: im2col (or the input itself for 1x1 stride 1) times
// the packed weights through the ISA's SGEMM. Compiled once per ISA level.
// Falls back to the reference for int8, dynamic weights and non-3-D inputs.
#include "convolution.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "sgemm_x86.h"

namespace kite {
namespace KITE_ISA_NS {

namespace {
float apply_activation(float v, const void* ctx)
{
    return (*(const Activation*)ctx)(v);
}
} // namespace

class Convolution_x86 : public Convolution
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
        const int K = weight_data_size / num_output;
        pack_a(MatView{(const float*)weight_data, K, 1}, num_output, K, packed_weight);
        act = Activation(activation_type, activation_params);
        return 0;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (bottom_blob.dims != 3 || bottom_blob.elempack != 1 || bottom_blob.elemsize != 4u || packed_weight.M == 0)
            return Convolution::forward(bottom_blob, top_blob, opt);

        const int num_input = weight_data_size / (num_output * kernel_w * kernel_h);
        if (bottom_blob.c != num_input)
        {
            KITE_LOGE("Convolution '%s': input has %d channels, the weights expect %d", name.c_str(), bottom_blob.c, num_input);
            return -1;
        }
        const int pads_in[4] = {pad_left, pad_right, pad_top, pad_bottom};
        const int sizes[2] = {bottom_blob.w, bottom_blob.h};
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        const int strides[2] = {stride_w, stride_h};
        int pads[4];
        conv_resolve_pads(pads_in, 2, sizes, extents, strides, pads);

        // SAME padding with a stride above the kernel extent can crop (a negative
        // pad); the reference handles that rare case
        if (pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
            return Convolution::forward(bottom_blob, top_blob, opt);

        Mat padded = bottom_blob;
        if (pads[0] > 0 || pads[1] > 0 || pads[2] > 0 || pads[3] > 0)
        {
            Option opt_ws = opt;
            opt_ws.blob_allocator = opt.workspace_allocator;
            copy_make_border(bottom_blob, padded, pads[2], pads[3], pads[0], pads[1], BORDER_CONSTANT, pad_value, opt_ws);
            if (padded.empty())
                return -100;
        }
        const int w = padded.w, h = padded.h;
        if (w < extents[0] || h < extents[1])
        {
            KITE_LOGE("Convolution '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d", name.c_str(),
                      bottom_blob.w, bottom_blob.h, w, h, extents[0], extents[1]);
            return -1;
        }
        const int outw = (w - extents[0]) / stride_w + 1;
        const int outh = (h - extents[1]) / stride_h + 1;
        top_blob.create(outw, outh, num_output, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;

        const int N = outw * outh;
        const int maxk = kernel_w * kernel_h;
        const int K = num_input * maxk;
        GemmEpilogue ep;
        ep.bias = bias_term ? (const float*)bias_data : nullptr;
        if (activation_type != ACTIVATION_NONE)
        {
            ep.activation = apply_activation;
            ep.activation_ctx = &act;
        }

        if (maxk == 1 && stride_w == 1 && stride_h == 1)
        {
            // the input channels are the rows of B already
            sgemm(packed_weight, MatView{(const float*)padded.data, (long)padded.cstep, 1}, N, (float*)top_blob.data,
                  (long)top_blob.cstep, 1, ep, opt);
            return 0;
        }

        Mat col(N, K, 4u, opt.workspace_allocator);
        if (col.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int k = 0; k < K; k++)
        {
            const int q = k / maxk;
            const int ky = (k % maxk) / kernel_w;
            const int kx = k % kernel_w;
            const float* src = (const float*)padded.data + padded.cstep * q;
            float* dst = (float*)col.data + (size_t)k * N;
            for (int oy = 0; oy < outh; oy++)
            {
                const float* row = src + (size_t)(oy * stride_h + ky * dilation_h) * w + kx * dilation_w;
                if (stride_w == 1)
                {
                    memcpy(dst, row, outw * sizeof(float));
                    dst += outw;
                }
                else
                {
                    for (int ox = 0; ox < outw; ox++)
                        *dst++ = row[ox * stride_w];
                }
            }
        }
        sgemm(packed_weight, MatView{(const float*)col.data, (long)N, 1}, N, (float*)top_blob.data, (long)top_blob.cstep, 1, ep, opt);
        return 0;
    }

    using Convolution::forward;

private:
    PackedA packed_weight;
    Activation act;
};

DEFINE_LAYER_CREATOR(Convolution_x86)

} // namespace KITE_ISA_NS
} // namespace kite
