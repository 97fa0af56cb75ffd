// Swish on OpenCL (eltwise.cl activation, code GPU_ACT_SWISH of layer/gpu/gpu_activation.h)
#include "swish.h"

#include "opencl/unary_opencl.h"

namespace kite {

class Swish_opencl : public cl::UnaryOpenCL<Swish>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = GPU_ACT_SWISH;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(Swish_opencl)

} // namespace kite
