// Reshape on OpenCL: the element map is worked out once per input shape and applied by the gather kernel (cl::ShapeCache)
#include "reshape.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class Reshape_opencl : public Reshape
{
public:
    Reshape_opencl() { support_opencl = true; }
    bool accept() const override { return true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        return cache_.forward(this, bottoms, tops, cl::session(gs), opt);
    }

private:
    mutable cl::ShapeCache cache_{cl::ShapeCache::GATHER};
};

DEFINE_LAYER_CREATOR(Reshape_opencl)

} // namespace kite
