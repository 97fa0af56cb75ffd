// ShuffleChannel on Vulkan: one buffer copy with a region per channel plane
#include "shufflechannel.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class ShuffleChannel_vulkan : public ShuffleChannel
{
public:
    ShuffleChannel_vulkan()
    {
        support_vulkan = true;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        const int channels = in.c;
        if (in.dims < 3 || channels % group != 0)
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
        const VkDeviceSize plane = (VkDeviceSize)in.w * in.h * in.d * in.elemsize;
        std::vector<VkBufferCopy> regions(channels);
        for (int q = 0; q < channels; q++)
            regions[q] = {(VkDeviceSize)((q % g) * cpg + q / g) * plane, (VkDeviceSize)q * plane, plane}; // q = i * g + j <- j * cpg + i
        int ret = s.copy_regions(vkl::blob_of(bottoms[0]), top.get(), regions);
        top->int8 = vkl::blob_of(bottoms[0])->int8;
        if (ret == 0)
            tops[0] = top;
        return ret;
    }
};

DEFINE_LAYER_CREATOR(ShuffleChannel_vulkan)

} // namespace kite
