// Interp on OpenCL: nearest resizing only moves data: the element map is worked out once per input shape and applied by the gather kernel (cl::ShapeCache); the other modes run on the CPU
#include "interp.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class Interp_opencl : public Interp
{
public:
    Interp_opencl() { support_opencl = true; }
    bool accept() const override { return resize_type == RESIZE_NEAREST; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        return cache_.forward(this, bottoms, tops, cl::session(gs), opt);
    }

private:
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Interp_opencl)

} // namespace kite
