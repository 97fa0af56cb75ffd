// Sigmoid on Vulkan (shaders/vulkan/unary.comp)
#include "sigmoid.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class Sigmoid_vulkan : public vkl::UnaryVulkan<Sigmoid>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = 4;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(Sigmoid_vulkan)

} // namespace kite
