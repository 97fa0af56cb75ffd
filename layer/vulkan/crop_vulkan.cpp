// Crop on Vulkan: an index map from the reference, then shaders/vulkan/gather.comp
#include "crop.h"

#include "vulkan/rearrange_vulkan.h"

namespace kite {

class Crop_vulkan : public vkl::GatherVulkan<Crop>
{
};

DEFINE_LAYER_CREATOR(Crop_vulkan)

} // namespace kite
