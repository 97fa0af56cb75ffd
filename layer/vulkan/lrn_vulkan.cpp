// LRN on Vulkan (shaders/vulkan/lrn.comp), both regions
#include "lrn.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class LRN_vulkan : public LRN
{
public:
    LRN_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "lrn", 2, 8, 8, 1);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        if (in.dims != 3)
        {
            KITE_LOGE("LRN '%s': expects a 3-D input, got dims %d", name.c_str(), in.dims);
            return -1;
        }
        vk::VkBlobPtr top = s.create_blob_like(in);
        if (!top)
            return -100;
        const float ads = region_type == ACROSS_CHANNELS ? alpha / local_size : alpha / (local_size * local_size);
        struct
        {
            int w, h, c, region, size;
            float alpha_div_size, beta, bias;
        } pc = {in.w, in.h, in.c, region_type == ACROSS_CHANNELS ? 0 : 1, local_size, ads, beta, bias};
        int ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), in.w, in.h, in.c);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(LRN_vulkan)

} // namespace kite
