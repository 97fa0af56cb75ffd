// Clip on Vulkan (shaders/vulkan/unary.comp)
#include "clip.h"

#include "vulkan/unary_vulkan.h"

namespace kite {

class Clip_vulkan : public vkl::UnaryVulkan<Clip>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = 3;
        p0 = min;
        p1 = max;
    }
};

DEFINE_LAYER_CREATOR(Clip_vulkan)

} // namespace kite
