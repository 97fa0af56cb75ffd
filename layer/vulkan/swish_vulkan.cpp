// Swish on Vulkan (shaders/vulkan/unary.comp)
#include "swish.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class Swish_vulkan : public vkl::UnaryVulkan<Swish>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = 10;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(Swish_vulkan)

} // namespace kite
