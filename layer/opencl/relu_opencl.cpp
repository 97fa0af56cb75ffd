// ReLU / leaky ReLU on OpenCL images (eltwise.cl activation)
#include "relu.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class ReLU_opencl : public ReLU
{
public:
    ReLU_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        (void)opt;
        const int act = slope == 0.f ? 1 : 2;
        // in the launch of an element-wise layer before it where that was put off
        int ret = cl::session(gs).activation_of_deferred(bottoms[0], tops[0], act, slope, 0.f);
        if (ret <= 0)
            return ret;
        // else put off: a per-channel BinaryOp applies it as it reads
        ret = cl::session(gs).defer_activation(bottoms[0], tops[0], act, slope, 0.f);
        if (ret <= 0)
            return ret;
        return cl::run_activation(cl::session(gs), bottoms[0], tops[0], act, slope, 0.f);
    }
};

DEFINE_LAYER_CREATOR(ReLU_opencl)

} // namespace kite
