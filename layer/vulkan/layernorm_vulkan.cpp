// LayerNorm on Vulkan (shaders/vulkan/layernorm.comp): one work group of 64
// invocations per normalised span
#include "layernorm.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class LayerNorm_vulkan : public LayerNorm
{
public:
    LayerNorm_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "layernorm", 4, 64);
        gamma = vkl::upload_weights(opt, affine ? gamma_data : Mat());
        beta = vkl::upload_weights(opt, affine ? beta_data : Mat());
        return pipe && gamma && beta ? 0 : -1;
    }
    int destroy_pipeline(const Option&) override
    {
        gamma.reset();
        beta.reset();
        return 0;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        const int span = norm_span(in);
        if (span <= 0)
            return -1;
        if (affine && (gamma_data.w < span || beta_data.w < span))
        {
            KITE_LOGE("LayerNorm '%s': %d gamma/beta values for spans of %d", name.c_str(), gamma_data.w, span);
            return -1;
        }
        vk::VkBlobPtr top = s.create_blob_like(in);
        if (!top)
            return -100;
        struct
        {
            int nspans, span, affine;
            float eps;
        } pc = {(int)(top->total() / span), span, affine, eps};
        int ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), gamma.get(), beta.get(), top.get()}, &pc, sizeof(pc), (uint32_t)pc.nspans * 64, 1, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr gamma, beta;
};

DEFINE_LAYER_CREATOR(LayerNorm_vulkan)

} // namespace kite
