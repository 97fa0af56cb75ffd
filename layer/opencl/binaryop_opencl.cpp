// BinaryOp on OpenCL images: two same-shaped inputs or one input and the
// scalar; broadcasting shapes run on the CPU.
#include "binaryop.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class BinaryOp_opencl : public BinaryOp
{
public:
    BinaryOp_opencl() { support_opencl = true; }
    bool accept() const override { return op_type >= 0 && op_type < Operation_COUNT; }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* a = cl::blob(bottoms[0]);
        const cl::ClBlob* b = bottoms.size() > 1 ? cl::blob(bottoms[1]) : nullptr;
        const bool scalar = with_scalar != 0 || !b;
        if (!scalar && (b->dims() != a->dims() || b->C != a->C || b->H != a->H || b->W != a->W))
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        cl::ClBlobPtr out;
        int ret = s.create_blob(a->shape, out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("transformer", "binaryop");
        if (!k)
            return -1;
        cl::KernelArgs ar(k);
        ar.img(a->image).img(scalar ? a->image : b->image).img(out->image).i(a->image.width).i(a->image.height);
        ar.i(op_type).i(scalar ? 1 : 0).f(this->b);
        ret = cl::run2d(s, k, "binaryop", a->image.width, a->image.height, ar);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }
};

DEFINE_LAYER_CREATOR(BinaryOp_opencl)

} // namespace kite
