// Split on OpenCL: every output is the input image (GPU blobs are never
// written in place, so sharing is safe)
#include "split.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class Split_opencl : public Split
{
public:
    Split_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        (void)gs;
        (void)opt;
        for (GpuBlobPtr& t : tops)
            t = bottoms[0];
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Split_opencl)

} // namespace kite
