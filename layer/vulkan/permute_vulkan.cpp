// Permute on Vulkan: an index map from the reference, then shaders/vulkan/gather.comp
#include "permute.h"

#include "vulkan/rearrange_vulkan.h"

namespace kite {

class Permute_vulkan : public vkl::GatherVulkan<Permute>
{
};

DEFINE_LAYER_CREATOR(Permute_vulkan)

} // namespace kite
