// Reduction on OpenCL (shape.cl reduce): every operation, axis set and
// keepdims of the reference (layer/gpu/reduction_plan.h); one work item per
// output pixel (4 output elements), or a work group of 64 per output pixel
// where each output sums 64 elements or more (reduce_wg).
#include "reduction.h"

#include "gpu/opencl/cl_ops.h"
#include "gpu/reduction_plan.h"

namespace kite {

class Reduction_opencl : public Reduction
{
public:
    // elements per output from which the work-group kernel runs
    static const int kGroupMin = 64;

    Reduction_opencl() { support_opencl = true; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        (void)opt;
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        ReductionPlan plan;
        if (reduction_plan(*this, in->shape, plan) != 0)
            return -1;
        cl::ClBlobPtr out;
        int ret = s.create_blob(plan.out, out);
        if (ret != 0)
            return ret;
        // long reductions (the squeeze-excitation means over H x W): a work
        // group of 64 per output pixel; short ones: one work item each
        const bool wg = plan.rcount >= kGroupMin;
        const char* name = wg ? "reduce_wg" : "reduce";
        cl_kernel k = s.kernel("shape", name);
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(out->image).i(in->H).i(in->W).i(out->C).i(out->H).i(out->W);
        for (int i = 0; i < 4; i++)
            a.i(plan.ext[i]);
        for (int i = 0; i < 4; i++)
            a.i(plan.red[i]);
        a.i(plan.rcount).i(operation).f(coeff);
        ret = wg ? cl::run_groups64(s, k, name, out->image.width * out->image.height, a)
                 : cl::run2d(s, k, name, out->image.width, out->image.height, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }
};

DEFINE_LAYER_CREATOR(Reduction_opencl)

} // namespace kite
