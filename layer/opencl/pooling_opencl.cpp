// 2-D max/avg pooling and global pooling on OpenCL images (ncnn's padding
// rules from pooling_plan_axis); adaptive pooling runs on the CPU.
#include "pooling.h"

#include "gpu/opencl/cl_ops.h"
#include "log.h"

namespace kite {

class Pooling_opencl : public Pooling
{
public:
    Pooling_opencl() { support_opencl = true; }
    bool accept() const override { return p.global_pooling || !p.adaptive_pooling; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        if (in->dims() != 3)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        const int CB = cl::div4(in->C);
        const int is_max = p.pooling_type == 0;
        cl::ClBlobPtr out;
        int ret;
        if (p.global_pooling)
        {
            ret = s.create_blob(cl::shape1(in->C), out, !in->image.half); // float in, float out (as Concat)
            if (ret != 0)
                return ret;
            cl_kernel k = s.kernel("pooling", "global_pool");
            if (!k)
                return -1;
            cl::KernelArgs a(k);
            a.img(in->image).img(out->image).i(CB).i(in->H).i(in->W).i(is_max);
            ret = cl::run_groups64(s, k, "global_pool", CB, a); // a work group per 4 channels
        }
        else
        {
            PoolingAxisPlan ax = pooling_plan_axis(p, 0, in->W);
            PoolingAxisPlan ay = pooling_plan_axis(p, 1, in->H);
            if (ax.out <= 0 || ay.out <= 0)
            {
                KITE_LOGE("Pooling '%s': input %d x %d with padding is smaller than the kernel", name.c_str(), in->W, in->H);
                return -1;
            }
            ret = s.create_blob(cl::shape3(ax.out, ay.out, in->C), out, !in->image.half);
            if (ret != 0)
                return ret;
            cl_kernel k = s.kernel("pooling", "pool2d");
            if (!k)
                return -1;
            cl::KernelArgs a(k);
            a.img(in->image).img(out->image).i(CB).i(in->H).i(in->W).i(ay.out).i(ax.out).i(p.kernel[0]).i(p.kernel[1]);
            a.i(p.stride[0]).i(p.stride[1]).i(ax.lo).i(ay.lo).i(ax.ex_lo).i(ax.ex_hi).i(ay.ex_lo).i(ay.ex_hi);
            a.i(is_max).i(!is_max && !p.avgpool_count_include_pad);
            ret = cl::run2d(s, k, "pool2d", ax.out * CB, ay.out, a);
        }
        if (ret != 0)
            return ret;
        tops[0] = out;
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Pooling_opencl)

} // namespace kite
