// Mish on OpenCL (eltwise.cl activation, code ACTIVATION_MISH of layer/gpu/gpu_activation.h)
#include "mish.h"

#include "opencl/unary_opencl.h"

namespace kite {

class Mish_opencl : public cl::UnaryOpenCL<Mish>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = ACTIVATION_MISH;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(Mish_opencl)

} // namespace kite
