// LayerNorm of the rows of a dims-2 blob (span w) or of a whole dims-1 blob
// on OpenCL images; other spans run on the CPU.
#include "layernorm.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class LayerNorm_opencl : public LayerNorm
{
public:
    LayerNorm_opencl() { support_opencl = true; }
    int create_pipeline(const Option& opt) override
    {
        int ret = LayerNorm::create_pipeline(opt);
        if (ret != 0)
            return ret;
        w_.ctx = cl::Context::get(opt.opencl_device);
        if (!w_.ctx || cl::prepare_programs(w_.ctx, opt, {"transformer"}) != 0)
            return -1;
        const int n = affine_size > 0 ? affine_size : 1;
        ret = cl::upload_argument(w_.ctx, affine ? (const float*)gamma_data : nullptr, n, w_.add());
        if (ret != 0)
            return ret;
        return cl::upload_argument(w_.ctx, affine ? (const float*)beta_data : nullptr, n, w_.add());
    }
    int destroy_pipeline(const Option& opt) override
    {
        w_.release();
        return LayerNorm::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const int w = in->shape.w;
        const bool rows = (in->dims() == 2 || in->dims() == 1) && (affine_size == w || (!affine && affine_size == 0));
        if (!rows)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        cl::ClBlobPtr out;
        int ret = s.create_blob(in->shape, out);
        if (ret != 0)
            return ret;
        if (in->dims() == 1)
        {
            cl_kernel k = s.kernel("transformer", "layernorm_vec");
            if (!k)
                return -1;
            cl::KernelArgs a(k);
            a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image).i(w).f(eps).i(affine);
            ret = cl::run_groups64(s, k, "layernorm_vec", 1, a);
            if (ret == 0)
                tops[0] = out;
            return ret;
        }
        cl_kernel k = s.kernel("transformer", "layernorm_rows");
        if (!k)
            return -1;
        const int RB = cl::div4(in->C);
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image).i(RB).i(in->H).f(eps).i(affine);
        ret = cl::run_groups64(s, k, "layernorm_rows", RB, a); // a work group per 4 rows
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

private:
    cl::Weights w_;
};

DEFINE_LAYER_CREATOR(LayerNorm_opencl)

} // namespace kite
