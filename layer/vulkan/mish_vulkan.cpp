// Mish on Vulkan (shaders/vulkan/unary.comp)
#include "mish.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class Mish_vulkan : public vkl::UnaryVulkan<Mish>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = 5;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(Mish_vulkan)

} // namespace kite
