// DeconvolutionDepthWise on Vulkan (shaders/vulkan/deconv.comp): every group
// count, kernel, stride, dilation, cut and fused activation of the reference
// (its output_geometry), on dims-3 inputs (others run on the CPU).
#include "deconvolutiondepthwise.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "gpu/cpu_fallback.h"
#include "vulkan/vulkan_common.h"

namespace kite {

class DeconvolutionDepthWise_vulkan : public DeconvolutionDepthWise
{
public:
    DeconvolutionDepthWise_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = DeconvolutionDepthWise::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = vkl::pipeline_for(opt, "deconv", 4, 8, 8, 1);
        w = vkl::upload_weights(opt, weight_data, true); // deconv.comp reads them as wfp
        b = vkl::upload_weights(opt, bias_term ? bias_data : Mat());
        return pipe && w && b ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        w.reset();
        b.reset();
        return DeconvolutionDepthWise::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        GpuBlobPtr in = bottoms[0];
        if (in->shape.elempack != 1)
        {
            int ret = s.convert_packing(bottoms[0], in, 1);
            if (ret != 0)
                return ret;
        }
        const Mat& m = in->shape;
        const int inch_g = weight_data_size / (num_output * kernel_w * kernel_h);
        if (m.dims != 3 || m.c != inch_g * group)
            return KITE_GPU_CANNOT_HOLD; // the reference runs it (or names the wrong shape)
        ConvGeometry g;
        int outw, outh;
        if (output_geometry(m.w, m.h, g, &outw, &outh) != 0)
            return -1;
        vk::VkBlobPtr top = s.create_blob(3, outw, outh, 1, num_output);
        if (!top)
            return -100;
        const Activation act(activation_type, activation_params);
        struct
        {
            int H, W, OC, OH, OW, inch_g, outch_g;
            int kw, kh, dw, dh, sw, sh, cut_w, cut_h;
            int bias_term, act;
            float p0, p1;
        } pc = {m.h, m.w, num_output, outh, outw, inch_g, num_output / group,
                kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h, g.pad_left, g.pad_top,
                bias_term, act.type, act.p0, act.p1};
        int ret = s.dispatch(pipe, {vkl::blob_of(in), w.get(), b.get(), top.get()}, &pc, sizeof(pc), outw, outh, num_output);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr w, b;
};

DEFINE_LAYER_CREATOR(DeconvolutionDepthWise_vulkan)

} // namespace kite
