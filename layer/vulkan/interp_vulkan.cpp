// Interp on Vulkan: nearest resizing only rearranges the input, so it runs as
// an index map from the reference (shaders/vulkan/gather.comp); bilinear and
// bicubic stay on the CPU
#include "interp.h"

#include "vulkan/rearrange_vulkan.h"

namespace kite {

class Interp_vulkan : public vkl::GatherVulkan<Interp>
{
public:
    bool accept() const override
    {
        return resize_type == 1;
    }
};

DEFINE_LAYER_CREATOR(Interp_vulkan)

} // namespace kite
