// MatMul on OpenCL images (transformer.cl matmul): any ranks, transB and
// batch broadcasting as the reference (MatMul::sizes), the operands read
// element by element from their channel-major images; one item per output
// pixel.
#include "matmul.h"

#include "gpu/cpu_fallback.h"
#include "gpu/opencl/cl_ops.h"
#include "log.h"

namespace kite {

class MatMul_opencl : public MatMul
{
public:
    MatMul_opencl() { support_opencl = true; }
    int create_pipeline(const Option& opt) override
    {
        int ret = MatMul::create_pipeline(opt);
        if (ret != 0)
            return ret;
        cl::Context* ctx = cl::Context::get(opt.opencl_device);
        return ctx ? cl::prepare_programs(ctx, opt, {"transformer"}) : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option&) const override
    {
        cl::Session& s = cl::session(gs);
        if (bottoms.size() != 2 || tops.empty())
        {
            KITE_LOGE("MatMul '%s': expects 2 inputs, got %d", name.c_str(), (int)bottoms.size());
            return -1;
        }
        const cl::ClBlob* A = cl::blob(bottoms[0]);
        const cl::ClBlob* B = cl::blob(bottoms[1]);
        Sizes z;
        if (sizes(A->shape, B->shape, z) != 0)
            return -1;
        if (z.M <= 0 || z.N <= 0 || z.K <= 0)
            return KITE_GPU_CANNOT_HOLD; // an empty product: the reference's
        const int* sh = z.shape;
        Mat shape = z.rank == 1 ? cl::shape1(sh[0]) : z.rank == 2 ? cl::shape2(sh[1], sh[0]) : z.rank == 3 ? cl::shape3(sh[2], sh[1], sh[0]) : cl::shape3(sh[3], sh[2], sh[0]);
        if (z.rank == 4)
        {
            shape.dims = 4;
            shape.d = sh[1];
        }
        cl::ClBlobPtr out;
        int ret = s.create_blob(shape, out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("transformer", "matmul");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(A->image).img(B->image).img(out->image).i(out->C).i(out->H).i(out->W).i(A->H).i(A->W).i(B->H).i(B->W);
        a.i(z.M).i(z.N).i(z.K).i(z.bd).i(z.a_bc).i(z.a_bd).i(z.b_bc).i(z.b_bd).i(z.b_trans ? 1 : 0);
        ret = cl::run2d(s, k, "matmul", out->W * cl::div4(out->C), out->H, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }
};

DEFINE_LAYER_CREATOR(MatMul_opencl)

} // namespace kite
