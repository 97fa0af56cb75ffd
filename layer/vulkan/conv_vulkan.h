#ifndef KITE_LAYER_VULKAN_CONV_VULKAN_H
#define KITE_LAYER_VULKAN_CONV_VULKAN_H

// The Vulkan driver shared by Convolution and ConvolutionDepthWise (a
// template on the reference class, whose parameter members have the same
// names): weights go to the device once, forward_gpu records conv.comp on
// elempack-1 inputs and conv_pack4.comp on elempack-4 ones where every group
// has a multiple of 4 input and output channels, or for depth-wise with a
// multiple of 4 channels (other packed inputs are unpacked on the device).
// int8 weights (int8_scale_term) run int8conv.comp on elempack-1 inputs with
// the CPU's scales and roundings; a requantizing layer's output is an int8 blob.

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "vulkan/vulkan_common.h"

namespace kite {
namespace vkl {

struct ConvGpu
{
    const vk::Pipeline* pipe = nullptr;
    const vk::Pipeline* pipe4 = nullptr; // conv_pack4, where pack4 is set
    vk::VkBlobPtr weight;
    vk::VkBlobPtr weight4; // the weights in conv_pack4.comp's order
    vk::VkBlobPtr bias; // int8: the per-channel arguments (upload_int8_args)
    bool int8 = false;
    int int8_numerics = 0;
    int pack4 = 0; // 0: elempack-1 only, 1: dense/grouped pack4, 2: depth-wise pack4

    template <class L>
    static bool accept(const L& l)
    {
        return !l.dynamic_weight && l.activation_type >= 0 && l.activation_type < ACTIVATION_TYPE_COUNT;
    }

    template <class L>
    int create(const L& l, int group, const Option& opt)
    {
        int8 = l.weight_data.elemsize == 1u;
        if (int8)
            return create_int8(l, opt);
        pipe = pipeline_for(opt, "conv", 4, 8, 8, 1);
        weight = upload_weights(opt, l.weight_data);
        bias = upload_weights(opt, l.bias_term ? l.bias_data : Mat());
        if (!pipe || !weight || !bias)
            return -1;
        const int outch = l.num_output;
        const int taps = l.kernel_w * l.kernel_h;
        if (group <= 0 || outch % group != 0 || taps <= 0 || l.weight_data_size % (outch / group * taps) != 0)
            return 0; // the reference reports the bad shape at forward time
        const int num_input = l.weight_data_size / (outch / group * taps);
        const int inch_g = num_input / group, outch_g = outch / group;
        const float* w = (const float*)l.weight_data.data;
        pack4 = 0;
        Mat w4;
        if (group == num_input && group == outch && outch % 4 == 0)
        {
            // depth-wise: [oq][tap] vec4 of channels 4oq..4oq+3
            pack4 = 2;
            w4.create(outch * taps);
            float* d = w4;
            for (int oq = 0; oq < outch / 4; oq++)
                for (int t = 0; t < taps; t++)
                    for (int l4 = 0; l4 < 4; l4++)
                        d[(oq * taps + t) * 4 + l4] = w[(oq * 4 + l4) * taps + t];
        }
        else if (num_input % group == 0 && inch_g % 4 == 0 && outch_g % 4 == 0)
        {
            // [oq][icl][tap][input lane] vec4 over the output lanes
            pack4 = 1;
            const int inq_g = inch_g / 4;
            w4.create(outch * inch_g * taps);
            float* d = w4;
            for (int oq = 0; oq < outch / 4; oq++)
                for (int icl = 0; icl < inq_g; icl++)
                    for (int t = 0; t < taps; t++)
                        for (int il = 0; il < 4; il++)
                            for (int ol = 0; ol < 4; ol++)
                                d[(((oq * inq_g + icl) * taps + t) * 4 + il) * 4 + ol] = w[((oq * 4 + ol) * inch_g + icl * 4 + il) * taps + t];
        }
        if (pack4)
        {
            pipe4 = pipeline_for(opt, "conv_pack4", 4, 8, 8, 1);
            weight4 = upload_weights(opt, w4);
            if (!pipe4 || !weight4)
                return -1;
        }
        return 0;
    }

    // the scales and numerics of Convolution::forward_int8
    template <class L>
    int create_int8(const L& l, const Option& opt)
    {
        const int n = l.num_output;
        const int maxk = l.kernel_w * l.kernel_h;
        const int inch_g = l.weight_data_size / (n * maxk);
        const int channels = inch_g * l.group;
        const bool requant = l.int8_scale_term > 100;
        const bool packed_dw = l.grouped && opt.use_packing_layout && channels == l.group && l.group == n && channels % 8 == 0;
        int8_numerics = CONV_INT8_FMA_BIAS | CONV_INT8_ROUND_ADDHALF;
        if (l.grouped)
            int8_numerics = packed_dw ? CONV_INT8_ROUND_ADDHALF : 0;
        const int outch_g = n / l.group;
        std::vector<float> scale_in(n), scale_out(n), bottom(n);
        for (int p = 0; p < n; p++)
        {
            const int gi = l.grouped ? p / outch_g : 0;
            const float wscale = l.weight_data_int8_scales[l.grouped ? gi : p];
            const float bs = l.bottom_blob_int8_scales[gi];
            scale_in[p] = packed_dw ? int8_dequant_scale_rcp(bs, wscale) : int8_dequant_scale(bs, wscale);
            scale_out[p] = requant ? l.top_blob_int8_scales[gi] : 1.f;
            bottom[p] = bs;
        }
        pipe = pipeline_for(opt, "int8conv", 4, 8, 8, 1);
        weight = upload_int8_weights(opt, l.weight_data);
        bias = upload_int8_args(opt, n, l.bias_term ? (const float*)l.bias_data : nullptr, scale_in, scale_out, bottom);
        return pipe && weight && bias ? 0 : -1;
    }

    void destroy()
    {
        weight.reset();
        weight4.reset();
        bias.reset();
    }

    template <class L>
    int forward(const L& l, int group, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session) const
    {
        vk::Session& s = session_of(session);
        GpuBlobPtr input = bottoms[0];
        if (input->shape.elempack != 1 && !(pack4 && input->shape.dims == 3 && input->shape.elempack == 4))
        {
            int ret = s.convert_packing(bottoms[0], input, 1);
            if (ret != 0)
                return ret;
        }
        const Mat& in = input->shape;
        const int ip = in.elempack;
        const int outch = l.num_output;
        const int num_input = l.weight_data_size / (outch / group * l.kernel_w * l.kernel_h) ;
        // a flat vector with a 1x1 kernel is a 1x1xC image (as the reference)
        int w = in.w, h = in.h, c = in.c * ip;
        bool flat = in.dims == 1 && l.kernel_w == 1 && l.kernel_h == 1 && in.w == num_input;
        if (flat)
        {
            w = 1;
            h = 1;
            c = in.w;
        }
        else if (in.dims != 3)
        {
            KITE_LOGE("%s '%s': the Vulkan driver takes a 3-D input, got dims %d", l.type.c_str(), l.name.c_str(), in.dims);
            return -1;
        }
        if (c != num_input || c % group != 0)
        {
            KITE_LOGE("%s '%s': input has %d channels, the weights expect %d", l.type.c_str(), l.name.c_str(), c, num_input);
            return -1;
        }
        const int extents[2] = {conv_kernel_extent(l.kernel_w, l.dilation_w), conv_kernel_extent(l.kernel_h, l.dilation_h)};
        int pads[4];
        l.resolve_pads_2d(w, h, pads);
        const int spanw = w + pads[0] + pads[1] - extents[0];
        const int spanh = h + pads[2] + pads[3] - extents[1];
        if (spanw < 0 || spanh < 0)
        {
            KITE_LOGE("%s '%s': input %dx%d is smaller than the kernel extent", l.type.c_str(), l.name.c_str(), w, h);
            return -1;
        }
        const int outw = spanw / l.stride_w + 1;
        const int outh = spanh / l.stride_h + 1;
        vk::VkBlobPtr top = flat ? s.create_blob(1, outch, 1, 1, 1) : s.create_blob(3, outw, outh, 1, outch / ip, ip);
        if (!top)
            return -100;
        const Activation act(l.activation_type, l.activation_params);
        if (int8)
        {
            const bool requant = l.int8_scale_term > 100;
            const int ocb = (outch / group) % 4 == 0 ? 4 : 1;
            struct
            {
                int w, h, c, outw, outh, outc;
                int kw, kh, dw, dh, sw, sh, pl, pt;
                int group, act;
                float p0, p1;
                int pad_q, in_int8, numerics, requant, ocb;
            } pc = {w, h, c, outw, outh, outch, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                    pads[0], pads[2], group, act.type, act.p0, act.p1, (int)pad_value_int8(l.pad_value),
                    blob_of(input)->int8 ? 1 : 0, int8_numerics, requant ? 1 : 0, ocb};
            int ret = s.dispatch(pipe, {blob_of(input), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), outw, outh, outch / ocb);
            if (ret != 0)
                return ret;
            top->int8 = requant;
            tops[0] = top;
            return 0;
        }
        if (ip == 4)
        {
            struct
            {
                int w, h, c4, outw, outh, outc4;
                int kw, kh, dw, dh, sw, sh, pl, pt;
                int group, bias_term, act;
                float p0, p1, pad_value;
                int dw_mode, nx;
            } pc = {w, h, c / 4, outw, outh, outch / 4, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                    pads[0], pads[2], group, l.bias_term, act.type, act.p0, act.p1, l.pad_value, pack4 == 2, outw >= 4 ? 4 : 1};
            int ret = s.dispatch(pipe4, {blob_of(input), weight4.get(), bias.get(), top.get()}, &pc, sizeof(pc),
                                 (outw + pc.nx - 1) / pc.nx, outh, outch / 4);
            if (ret != 0)
                return ret;
            tops[0] = top;
            return 0;
        }
        struct
        {
            int w, h, c, outw, outh, outc;
            int kw, kh, dw, dh, sw, sh, pl, pt;
            int group, bias_term, act;
            float p0, p1, pad_value;
            int ocb;
        } pc = {w, h, c, outw, outh, outch, l.kernel_w, l.kernel_h, l.dilation_w, l.dilation_h, l.stride_w, l.stride_h,
                pads[0], pads[2], group, l.bias_term, act.type, act.p0, act.p1, l.pad_value,
                (outch / group) % 4 == 0 ? 4 : 1};
        int ret = s.dispatch(pipe, {blob_of(input), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), outw, outh, outch / pc.ocb);
        if (ret != 0)
            return ret;
        tops[0] = top;
        return 0;
    }
};

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_CONV_VULKAN_H
