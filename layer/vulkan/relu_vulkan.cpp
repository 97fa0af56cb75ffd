// ReLU on Vulkan (shaders/vulkan/unary.comp)
#include "relu.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class ReLU_vulkan : public vkl::UnaryVulkan<ReLU>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = slope == 0.f ? 1 : 2;
        p0 = slope;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(ReLU_vulkan)

} // namespace kite
