// HardSwish on Vulkan (shaders/vulkan/unary.comp)
#include "hardswish.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class HardSwish_vulkan : public vkl::UnaryVulkan<HardSwish>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = 6;
        p0 = alpha;
        p1 = beta;
    }
};

DEFINE_LAYER_CREATOR(HardSwish_vulkan)

} // namespace kite
