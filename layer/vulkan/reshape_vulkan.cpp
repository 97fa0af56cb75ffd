// Reshape on Vulkan: an index map from the reference, then shaders/vulkan/gather.comp
#include "reshape.h"

#include "vulkan/rearrange_vulkan.h"

namespace kite {

class Reshape_vulkan : public vkl::GatherVulkan<Reshape>
{
};

DEFINE_LAYER_CREATOR(Reshape_vulkan)

} // namespace kite
