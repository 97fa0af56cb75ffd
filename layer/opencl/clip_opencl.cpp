// Clip on OpenCL (eltwise.cl activation, code ACTIVATION_CLIP of layer/gpu/gpu_activation.h)
#include "clip.h"

#include "opencl/unary_opencl.h"

namespace kite {

class Clip_opencl : public cl::UnaryOpenCL<Clip>
{
protected:
    void params(int& type, float& p0, float& p1) const override
    {
        type = ACTIVATION_CLIP;
        p0 = min;
        p1 = max;
    }
};

DEFINE_LAYER_CREATOR(Clip_opencl)

} // namespace kite
