// PriorBox on Vulkan: a constant of the input shapes, computed once by the
// reference and kept on the device
#include "priorbox.h"

#include "vulkan/rearrange_vulkan.h"

namespace kite {

class PriorBox_vulkan : public vkl::ConstantVulkan<PriorBox>
{
};

DEFINE_LAYER_CREATOR(PriorBox_vulkan)

} // namespace kite
