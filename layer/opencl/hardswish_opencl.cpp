// HardSwish on OpenCL (eltwise.cl activation, code ACTIVATION_HARDSWISH of layer/gpu/gpu_activation.h)
#include "hardswish.h"

#include "opencl/unary_opencl.h"

namespace kite {

class HardSwish_opencl : public cl::UnaryOpenCL<HardSwish>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = ACTIVATION_HARDSWISH;
        p0 = alpha;
        p1 = beta;
    }
};

DEFINE_LAYER_CREATOR(HardSwish_opencl)

} // namespace kite
