// Sigmoid on OpenCL (eltwise.cl activation, code ACTIVATION_SIGMOID of layer/gpu/gpu_activation.h)
#include "sigmoid.h"

#include "opencl/unary_opencl.h"

namespace kite {

class Sigmoid_opencl : public cl::UnaryOpenCL<Sigmoid>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = ACTIVATION_SIGMOID;
        p0 = 0.f;
        p1 = 0.f;
    }
};

DEFINE_LAYER_CREATOR(Sigmoid_opencl)

} // namespace kite
