// TanH on OpenCL (eltwise.cl activation, code GPU_ACT_TANH of layer/gpu/gpu_activation.h)
#include "tanh.h"

#include "opencl/unary_opencl.h"

namespace kite {

class TanH_opencl : public cl::UnaryOpenCL<TanH>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = GPU_ACT_TANH;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(TanH_opencl)

} // namespace kite
