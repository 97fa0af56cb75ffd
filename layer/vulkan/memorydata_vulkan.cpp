// MemoryData on Vulkan: a constant of the input shapes, computed once by the
// reference and kept on the device
#include "memorydata.h"

#include "vulkan/rearrange_vulkan.h"

namespace kite {

class MemoryData_vulkan : public vkl::ConstantVulkan<MemoryData>
{
};

DEFINE_LAYER_CREATOR(MemoryData_vulkan)

} // namespace kite
