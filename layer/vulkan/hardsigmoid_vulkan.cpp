// HardSigmoid on Vulkan (shaders/vulkan/unary.comp)
#include "hardsigmoid.h"

#include "gpu/gpu_activation.h"
#include "vulkan/unary_vulkan.h"

namespace kite {

class HardSigmoid_vulkan : public vkl::UnaryVulkan<HardSigmoid>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = GPU_ACT_HARDSIGMOID;
        p0 = alpha;
        p1 = beta;
    }
};

DEFINE_LAYER_CREATOR(HardSigmoid_vulkan)

} // namespace kite
