// Eltwise (prod, sum with coefficients, max) on OpenCL images, two inputs
// per launch.
#include "eltwise.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class Eltwise_opencl : public Eltwise
{
public:
    Eltwise_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* b0 = cl::blob(bottoms[0]);
        bool same = op_type >= 0 && op_type <= 2;
        for (const GpuBlobPtr& g : bottoms)
        {
            const cl::ClBlob* b = cl::blob(g);
            same = same && b->dims() == b0->dims() && b->C == b0->C && b->H == b0->H && b->W == b0->W;
        }
        if (!same || bottoms.size() < 2)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        const float* co = coeffs.empty() ? nullptr : (const float*)coeffs.data;
        GpuBlobPtr acc = bottoms[0];
        for (size_t i = 1; i < bottoms.size(); i++)
        {
            cl::ClBlobPtr out;
            int ret = s.create_blob(b0->shape, out);
            if (ret != 0)
                return ret;
            cl_kernel k = s.kernel("eltwise", "eltwise2");
            if (!k)
                return -1;
            const float ca = (i == 1 && co && op_type == 1) ? co[0] : 1.f;
            const float cb = (co && op_type == 1) ? co[i] : 1.f;
            cl::KernelArgs a(k);
            a.img(cl::blob(acc)->image).img(cl::blob(bottoms[i])->image).img(out->image).i(out->image.width).i(out->image.height);
            a.i(op_type).f(ca).f(cb);
            ret = cl::run2d(s, k, "eltwise2", out->image.width, out->image.height, a);
            if (ret != 0)
                return ret;
            acc = out;
        }
        tops[0] = acc;
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Eltwise_opencl)

} // namespace kite
