// PriorBox on OpenCL: its output depends on the input shapes only; computed once per shape by the reference and kept on the device (cl::ShapeCache)
#include "priorbox.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class PriorBox_opencl : public PriorBox
{
public:
    PriorBox_opencl() { support_opencl = true; }
    bool accept() const override { return true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        return cache_.forward(this, bottoms, tops, cl::session(gs), opt);
    }

private:
    mutable cl::ShapeCache cache_{cl::ShapeCache::CONSTANT};
};

DEFINE_LAYER_CREATOR(PriorBox_opencl)

} // namespace kite
