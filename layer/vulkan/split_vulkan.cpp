// Split on Vulkan: every output shares the input blob (device blobs are
// never written after the layer that made them)
#include "split.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Split_vulkan : public Split
{
public:
    Split_vulkan()
    {
        support_vulkan = true;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession&, const Option&) const override
    {
        if (bottoms.size() != 1)
        {
            KITE_LOGE("Split '%s': expects one input, got %d", name.c_str(), (int)bottoms.size());
            return -1;
        }
        for (GpuBlobPtr& t : tops)
            t = bottoms[0];
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Split_vulkan)

} // namespace kite
