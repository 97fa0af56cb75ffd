// GELU (erf or tanh form) on OpenCL images
#include "gelu.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class GELU_opencl : public GELU
{
public:
    GELU_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        (void)opt;
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        cl::ClBlobPtr out;
        int ret = s.create_blob(in->shape, out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("eltwise", "gelu");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(out->image).i(in->image.width).i(in->image.height).i(fast_gelu);
        ret = cl::run2d(s, k, "gelu", in->image.width, in->image.height, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }
};

DEFINE_LAYER_CREATOR(GELU_opencl)

} // namespace kite
