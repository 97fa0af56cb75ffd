// Gemm on Vulkan (shaders/vulkan/gemm.comp): constant or input A and B, any
// transA/transB/output_transpose/output_N1M, alpha/beta and every C broadcast
// (constant or an input, resolved as the reference does)
#include "gemm.h"

#include "vulkan/gemm_vulkan.h"

namespace kite {

class Gemm_vulkan : public Gemm
{
public:
    Gemm_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = Gemm::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = vkl::gemm_pipeline(opt);
        if (!pipe)
            return -1;
        // constants keep the reference's shapes (row/column counts below)
        if (constantA && !(a_ = upload(opt, A_data)))
            return -1;
        if (constantB && !(b_ = upload(opt, B_data)))
            return -1;
        if (constantC && !(c_ = upload(opt, C_data)))
            return -1;
        return 0;
    }
    int destroy_pipeline(const Option& opt) override
    {
        a_.reset();
        b_.reset();
        c_.reset();
        return Gemm::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const int need = (constantA ? 0 : 1) + (constantB ? 0 : 1);
        if ((int)bottoms.size() < need || (int)bottoms.size() > need + (constantC ? 0 : 1) || tops.empty())
        {
            KITE_LOGE("Gemm '%s': expects %d input(s)%s, got %d", name.c_str(), need, constantC ? "" : " (+ optional C)", (int)bottoms.size());
            return -1;
        }
        int bi = 0;
        const vk::VkBlob* A = constantA ? a_.get() : vkl::blob_of(bottoms[bi++]);
        const vk::VkBlob* B = constantB ? b_.get() : vkl::blob_of(bottoms[bi++]);
        const vk::VkBlob* C = constantC ? c_.get() : bi < (int)bottoms.size() ? vkl::blob_of(bottoms[bi]) : nullptr;
        int ar, ac, br, bc;
        if (!rows_cols(A->shape, ar, ac) || !rows_cols(B->shape, br, bc))
        {
            KITE_LOGE("Gemm '%s': A and B must be 1-D, 2-D or (w, 1, c) blobs, got dims %d and %d", name.c_str(), A->shape.dims, B->shape.dims);
            return -1;
        }
        vkl::GemmOp g = {};
        g.M = transA ? ac : ar;
        g.K = transA ? ar : ac;
        g.N = transB ? br : bc;
        if ((transB ? bc : br) != g.K)
        {
            KITE_LOGE("Gemm '%s': A is %d x %d and B is %d x %d, inner sizes differ", name.c_str(), g.M, g.K, transB ? bc : br, g.N);
            return -1;
        }
        g.a_f32 = constantA;
        g.b_f32 = constantB;
        g.c_f32 = constantC;
        g.a_rs = transA ? 1 : ac;
        g.a_cs = transA ? ac : 1;
        g.b_rs = transB ? 1 : bc;
        g.b_cs = transB ? bc : 1;
        int bt = constant_broadcast_type_C;
        if (C && resolve_c(C->shape, g.M, g.N, bt) != 0)
            return -1;
        if (C)
        {
            g.has_c = 1;
            g.c_rs = bt == BROADCAST_C_M || bt == BROADCAST_C_M1 ? 1 : bt == BROADCAST_C_MN ? g.N : 0;
            g.c_cs = bt == BROADCAST_C_MN || bt == BROADCAST_C_1N ? 1 : 0;
        }
        // the reference computes alpha * (beta * C + sum)
        g.alpha = alpha;
        g.cbeta = alpha * beta;
        const int out_rows = output_transpose ? g.N : g.M;
        const int out_cols = output_transpose ? g.M : g.N;
        g.o_rs = output_transpose ? 1 : g.N;
        g.o_cs = output_transpose ? g.M : 1;
        vk::VkBlobPtr top = output_N1M ? s.create_blob(3, out_cols, 1, 1, out_rows) : s.create_blob(2, out_cols, out_rows, 1, 1);
        if (!top)
            return -100;
        int ret = vkl::record_gemm(s, pipe, A, B, C, top.get(), g, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    // the reference's matrix view: 1-D one row, 2-D h rows, (w, 1, c) c rows
    static bool rows_cols(const Mat& m, int& rows, int& cols)
    {
        cols = m.w;
        rows = m.dims == 1 ? 1 : m.dims == 2 ? m.h : m.c;
        return m.dims <= 2 || (m.dims == 3 && m.h == 1);
    }
    static vk::VkBlobPtr upload(const Option& opt, const Mat& m)
    {
        vk::VkBlobPtr b = vkl::upload_weights(opt, m);
        if (b)
            b->shape = gpu_shape_of(m);
        return b;
    }

    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr a_, b_, c_;
};

DEFINE_LAYER_CREATOR(Gemm_vulkan)

} // namespace kite
