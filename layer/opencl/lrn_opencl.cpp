// LRN across channels on OpenCL images; within-channel LRN runs on the CPU
#include "lrn.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class LRN_opencl : public LRN
{
public:
    LRN_opencl() { support_opencl = true; }
    bool accept() const override { return region_type == ACROSS_CHANNELS; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        if (in->dims() != 3)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        cl::ClBlobPtr out;
        int ret = s.create_blob(in->shape, out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("transformer", "lrn_across");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(out->image).i(in->C).i(in->H).i(in->W).i(local_size).f(alpha / local_size).f(beta).f(bias);
        ret = cl::run2d(s, k, "lrn_across", in->image.width, in->image.height, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }
};

DEFINE_LAYER_CREATOR(LRN_opencl)

} // namespace kite
