// Flatten on Vulkan: the device layout is contiguous, so the output views the
// input's buffer with a 1-D shape
#include "flatten.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Flatten_vulkan : public Flatten
{
public:
    Flatten_vulkan()
    {
        support_vulkan = true;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession&, const Option&) const override
    {
        const Mat& in = bottoms[0]->shape;
        const size_t total = (size_t)in.w * in.h * in.d * in.c;
        if (total > 0x7fffffff)
        {
            KITE_LOGE("Flatten '%s': %zu elements do not fit one axis", name.c_str(), total);
            return -1;
        }
        tops[0] = vkl::alias_blob(bottoms[0], 1, (int)total, 1, 1, 1);
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Flatten_vulkan)

} // namespace kite
