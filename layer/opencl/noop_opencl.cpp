// Noop on OpenCL: every output is its input (no work, no copy)
#include "noop.h"

namespace kite {

class Noop_opencl : public Noop
{
public:
    Noop_opencl()
    {
        support_opencl = true;
        support_packing = true;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option& opt) const override
    {
        (void)session;
        (void)opt;
        // as the reference runs in place: output i is input i
        if (tops.size() > bottoms.size())
            return -1;
        for (size_t i = 0; i < tops.size(); i++)
            tops[i] = bottoms[i];
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Noop_opencl)

} // namespace kite
