#ifndef KITE_LAYER_VULKAN_CONV_VULKAN_H
#define KITE_LAYER_VULKAN_CONV_VULKAN_H

// The Vulkan driver shared by Convolution and ConvolutionDepthWise (a
// template on the reference class, whose parameter members have the same
// names): weights go to the device once, forward_gpu records conv.comp.

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "vulkan/vulkan_common.h"

namespace kite {
namespace vkl {

struct ConvGpu
{
    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr weight;
    vk::VkBlobPtr bias;

    template <class L>
    static bool accept(const L& l)
    {
        return l.int8_scale_term == 0 && !l.dynamic_weight && l.activation_type >= 0 && l.activation_type < ACTIVATION_TYPE_COUNT;
    }

    template <class L>
    int create(const L& l, const Option& opt)
    {
        pipe = pipeline_for(opt, "conv", 4, 8, 8, 1);
        weight = upload_weights(opt, l.weight_data);
        bias = upload_weights(opt, l.bias_term ? l.bias_data : Mat());
        return pipe && weight && bias ? 0 : -1;
    }

    void destroy()
    {
        weight.reset();
        bias.reset();
    }

    template <class L>
    int forward(const L& l, int group, const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session) const
    {
        vk::Session& s = session_of(session);
        const Mat& in = bottoms[0]->shape;
        const int outch = l.num_output;
        const int num_input = l.weight_data_size / (outch / group * l.kernel_w * l.kernel_h) ;
        // a flat vector with a 1x1 kernel is a 1x1xC image (as the reference)
        int w = in.w, h = in.h, c = in.c;
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
        vk::VkBlobPtr top = flat ? s.create_blob(1, outch, 1, 1, 1) : s.create_blob(3, outw, outh, 1, outch);
        if (!top)
            return -100;
        const Activation act(l.activation_type, l.activation_params);
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
        int ret = s.dispatch(pipe, {blob_of(bottoms[0]), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), outw, outh, outch / pc.ocb);
        if (ret != 0)
            return ret;
        tops[0] = top;
        return 0;
    }
};

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_CONV_VULKAN_H
