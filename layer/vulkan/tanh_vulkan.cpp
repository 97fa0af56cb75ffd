// TanH on Vulkan (shaders/vulkan/unary.comp)
#include "tanh.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class TanH_vulkan : public vkl::UnaryVulkan<TanH>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = 7;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(TanH_vulkan)

} // namespace kite
