// ShuffleChannel on Vulkan: one buffer copy with a region per channel plane
// on elempack 1; packed blobs (elempack 4/8) stay packed: packing.comp moves
// each scalar channel to its shuffled place in one dispatch
#include "shufflechannel.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class ShuffleChannel_vulkan : public ShuffleChannel
{
public:
    ShuffleChannel_vulkan()
    {
        support_vulkan = true;
        support_packing = true;
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "packing", 2, 64, 1, 1);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        const int channels = in.c * in.elempack; // scalar channels
        if (in.dims < 3 || group <= 0 || channels % group != 0)
        {
            KITE_LOGE("ShuffleChannel '%s': needs dims 3 or 4 with channels divisible by %d", name.c_str(), group);
            return -1;
        }
        int g = group;
        int cpg = channels / group;
        if (reverse)
        {
            g = cpg;
            cpg = group;
        }
        vk::VkBlobPtr top = s.create_blob_like(in);
        if (!top)
            return -100;
        top->int8 = vkl::blob_of(bottoms[0])->int8;
        int ret;
        if (in.elempack != 1)
        {
            // output channel q = i * g + j <- input channel j * cpg + i
            struct
            {
                int plane, c, sp, dp, g, cpg;
            } pc = {in.w * in.h * in.d, channels, in.elempack, in.elempack, g, cpg};
            ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), pc.plane, pc.c, 1);
        }
        else
        {
            const VkDeviceSize plane = (VkDeviceSize)in.w * in.h * in.d * in.elemsize;
            std::vector<VkBufferCopy> regions(channels);
            for (int q = 0; q < channels; q++)
                regions[q] = {(VkDeviceSize)((q % g) * cpg + q / g) * plane, (VkDeviceSize)q * plane, plane}; // q = i * g + j <- j * cpg + i
            ret = s.copy_regions(vkl::blob_of(bottoms[0]), top.get(), regions);
        }
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(ShuffleChannel_vulkan)

} // namespace kite
