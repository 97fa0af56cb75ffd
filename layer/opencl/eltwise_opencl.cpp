// Eltwise (prod, sum with coefficients, max) on OpenCL images, two inputs
// per launch; the last launch is put off (cl::Session::defer_elementwise) so
// that an activation layer after it (ShuffleNet's sum + ReLU) runs in it. A
// sum of two after a put-off 1x1 convolution runs in the convolution's
// launch (Session::defer_residual_add), with the activation after it.
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
        cl::Session* sp = &s;
        if (bottoms.size() == 2 && op_type == Operation_SUM && (!co || (co[0] == 1.f && co[1] == 1.f)))
        {
            // a residual sum after a 1x1 convolution: in the convolution's launch
            cl::ClBlobPtr out;
            int ret = s.create_blob(b0->shape, out);
            if (ret != 0)
                return ret;
            if (s.defer_residual_add(std::static_pointer_cast<cl::ClBlob>(bottoms[0]),
                                     std::static_pointer_cast<cl::ClBlob>(bottoms[1]), -1, -1, *out) == 0)
            {
                tops[0] = out;
                return 0;
            }
        }
        for (size_t i = 1; i < bottoms.size(); i++)
        {
            cl::ClBlobPtr out;
            int ret = s.create_blob(b0->shape, out);
            if (ret != 0)
                return ret;
            const float ca = (i == 1 && co && op_type == 1) ? co[0] : 1.f;
            const float cb = (co && op_type == 1) ? co[i] : 1.f;
            const cl::ClBlobPtr pa = std::static_pointer_cast<cl::ClBlob>(acc);
            const cl::ClBlobPtr pb = std::static_pointer_cast<cl::ClBlob>(bottoms[i]);
            const int op = op_type;
            auto run = [sp, pa, pb, op, ca, cb](int act, float p0, float p1, const cl::Image& dst) {
                cl_kernel k = sp->kernel("eltwise", "eltwise2");
                if (!k)
                    return -1;
                cl::KernelArgs a(k);
                a.img(pa->image).img(pb->image).img(dst).i(dst.width).i(dst.height);
                a.i(op).f(ca).f(cb).i(act).f(p0).f(p1);
                return cl::run2d(*sp, k, "eltwise2", dst.width, dst.height, a);
            };
            // the last sum is put off: an activation layer that follows runs in its launch
            if (i + 1 == bottoms.size())
                s.defer_elementwise(*out, run);
            else if ((ret = run(0, 0.f, 0.f, out->image)) != 0)
                return ret;
            acc = out;
        }
        tops[0] = acc;
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Eltwise_opencl)

} // namespace kite
