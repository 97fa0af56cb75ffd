// HardSigmoid on OpenCL (eltwise.cl activation, code GPU_ACT_HARDSIGMOID of layer/gpu/gpu_activation.h)
#include "hardsigmoid.h"

#include "opencl/unary_opencl.h"

namespace kite {

class HardSigmoid_opencl : public cl::UnaryOpenCL<HardSigmoid>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = GPU_ACT_HARDSIGMOID;
        p0 = alpha;
        p1 = beta;
    }
};

DEFINE_LAYER_CREATOR(HardSigmoid_opencl)

} // namespace kite
