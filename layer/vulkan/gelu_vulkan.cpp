// GELU on Vulkan (shaders/vulkan/unary.comp)
#include "gelu.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class GELU_vulkan : public vkl::UnaryVulkan<GELU>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = fast_gelu ? 9 : 8;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(GELU_vulkan)

} // namespace kite
