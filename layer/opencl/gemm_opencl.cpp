// Gemm with a constant B (the transformer's fully connected layers) on
// OpenCL images: A the rows of a dims-2 input, C none, a scalar or one value
// per output column. Other forms are declined (CPU).
#include "gemm.h"

#include "gpu/opencl/cl_ops.h"

#include <vector>

namespace kite {

class Gemm_opencl : public Gemm
{
public:
    Gemm_opencl() { support_opencl = true; }
    bool accept() const override
    {
        return constantB && !constantA && !transA && output_N1M == 0 && output_transpose == 0 && int8_scale_term == 0
               && output_elemtype == 0 && constantN > 0 && constantK > 0
               && (!constantC || constant_broadcast_type_C == BROADCAST_C_SCALAR || constant_broadcast_type_C == BROADCAST_C_1N);
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = Gemm::create_pipeline(opt);
        if (ret != 0)
            return ret;
        w_.ctx = cl::Context::get(opt.opencl_device);
        if (!w_.ctx || cl::prepare_programs(w_.ctx, opt, {"transformer"}) != 0)
            return -1;
        const int N = constantN, K = constantK;
        std::vector<float> wt;
        const float* w = B_data;
        if (!transB)
        {
            // B is [K][N]: the kernel takes [N][K]
            wt.resize((size_t)N * K);
            for (int k = 0; k < K; k++)
                for (int n = 0; n < N; n++)
                    wt[(size_t)n * K + k] = w[(size_t)k * N + n];
            w = wt.data();
        }
        ret = cl::upload_linear_weights(w_.ctx, w, N, K, w_.add());
        if (ret != 0)
            return ret;
        bias_mode_ = !constantC ? 0 : constant_broadcast_type_C == BROADCAST_C_SCALAR ? 2 : 1;
        return cl::upload_argument(w_.ctx, constantC ? (const float*)C_data : nullptr, bias_mode_ == 1 ? N : 1, w_.add());
    }
    int destroy_pipeline(const Option& opt) override
    {
        w_.release();
        return Gemm::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* a = cl::blob(bottoms[0]);
        if (bottoms.size() != 1 || a->dims() != 2 || a->shape.w != constantK)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        cl::ClBlobPtr out;
        int ret = cl::run_linear(s, a, w_.images[0], w_.images[1], bias_mode_, constantK, constantN, alpha, beta, out);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

private:
    cl::Weights w_;
    int bias_mode_ = 0;
};

DEFINE_LAYER_CREATOR(Gemm_opencl)

} // namespace kite
