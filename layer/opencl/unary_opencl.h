#ifndef KITE_LAYER_OPENCL_UNARY_OPENCL_H
#define KITE_LAYER_OPENCL_UNARY_OPENCL_H

// Element-wise activation layers on OpenCL: one driver template over the
// reference class; `params` gives the activation code (layer/gpu/
// gpu_activation.h, the `activate` of shaders/opencl/common.h.cl) and its two
// parameters. Runs eltwise.cl's activation kernel over the whole image.

#include "gpu/gpu_activation.h"
#include "gpu/opencl/cl_ops.h"

namespace kite {
namespace cl {

template <class Base>
class UnaryOpenCL : public Base
{
public:
    UnaryOpenCL() { this->support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        (void)opt;
        int type;
        float p0, p1;
        params(type, p0, p1);
        // in the launch of an element-wise layer before it where that was put off
        int ret = session(gs).activation_of_deferred(bottoms[0], tops[0], type, p0, p1);
        if (ret <= 0)
            return ret;
        // else put off: a per-channel BinaryOp applies it as it reads (SE scales)
        ret = session(gs).defer_activation(bottoms[0], tops[0], type, p0, p1);
        if (ret <= 0)
            return ret;
        return run_activation(session(gs), bottoms[0], tops[0], type, p0, p1);
    }

protected:
    virtual void params(int& type, float& p0, float& p1) const = 0;
};

} // namespace cl
} // namespace kite

#endif // KITE_LAYER_OPENCL_UNARY_OPENCL_H
