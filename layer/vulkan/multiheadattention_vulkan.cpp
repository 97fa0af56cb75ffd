// MultiHeadAttention on Vulkan: the q/k/v projections, the scaled per-head
// scores Q K^T (+ mask), the row softmax, the per-head products with V and
// the output projection as the reference computes them, the matrix products
// through shaders/vulkan/gemm.comp (heads are batches over strided slices of
// the projections) and the softmax through softmax.comp. The intermediates
// (projections, scores, probabilities, head outputs) are float buffers in
// every session: with fp16 storage, rounding the large logits to fp16 alone
// would move the output past the fp16 tolerance.
#include "multiheadattention.h"

#include "vulkan/gemm_vulkan.h"

namespace kite {

class MultiHeadAttention_vulkan : public MultiHeadAttention
{
public:
    MultiHeadAttention_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = MultiHeadAttention::create_pipeline(opt);
        if (ret != 0)
            return ret;
        gemm = vkl::gemm_pipeline(opt);
        vk::VulkanDevice* d = vk::VulkanDevice::get(opt.vulkan_device);
        // the fp32 variants, on the float intermediates
        softmax = d ? d->pipeline("softmax", 2, 1, 64, 1, 0) : nullptr;
        softmax_row = d ? d->pipeline("softmax_row", 2, 64, 1, 1, 0) : nullptr;
        const Mat* src[8] = {&q_weight_data, &q_bias_data, &k_weight_data, &k_bias_data,
                             &v_weight_data, &v_bias_data, &out_weight_data, &out_bias_data};
        for (int i = 0; i < 8; i++)
            if (!(w[i] = vkl::upload_weights(opt, *src[i])))
                return -1;
        return gemm && softmax && softmax_row ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        for (vk::VkBlobPtr& b : w)
            b.reset();
        return MultiHeadAttention::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option& opt) const override
    {
        vk::Session& s = vkl::session_of(session);
        std::vector<Mat> shapes;
        for (const GpuBlobPtr& b : bottoms)
            shapes.push_back(b->shape);
        Inputs io;
        int ret = check_inputs(shapes, std::vector<Mat>(tops.size()), io);
        if (ret != 0)
            return ret;
        const int ndata = (int)bottoms.size() - (attn_mask ? 1 : 0);
        const vk::VkBlob* qb = vkl::blob_of(bottoms[0]);
        const vk::VkBlob* kb = ndata >= 2 ? vkl::blob_of(bottoms[1]) : qb;
        const vk::VkBlob* vb = ndata == 3 ? vkl::blob_of(bottoms[2]) : kb;
        const int Lq = io.src_len, Lk = io.dst_len, E = embed_dim, hd = embed_dim / num_heads;

        // float intermediates: buffers of n floats whatever the session stores
        const int per_float = (int)(4 / s.device()->storage_elemsize(opt));
        auto floats = [&](int n) { return s.create_blob(1, n * per_float, 1, 1, 1); };
        vk::VkBlobPtr xq = floats(E * Lq), xk = floats(E * Lk), xv = floats(E * Lk);
        vk::VkBlobPtr score = floats(Lk * Lq * num_heads), prob = floats(Lk * Lq * num_heads);
        vk::VkBlobPtr attn = floats(E * Lq), top = s.create_blob(2, qdim, Lq, 1, 1);
        if (!xq || !xk || !xv || !score || !prob || !attn || !top)
            return -100;
        // projections
        vkl::GemmOp pq = vkl::linear_op(Lq, qdim, E, true), pk = vkl::linear_op(Lk, kdim, E, true), pv = vkl::linear_op(Lk, vdim, E, true);
        pq.o_f32 = pk.o_f32 = pv.o_f32 = 1;
        ret = vkl::record_gemm(s, gemm, qb, w[0].get(), w[1].get(), xq.get(), pq, 1);
        if (ret == 0)
            ret = vkl::record_gemm(s, gemm, kb, w[2].get(), w[3].get(), xk.get(), pk, 1);
        if (ret == 0)
            ret = vkl::record_gemm(s, gemm, vb, w[4].get(), w[5].get(), xv.get(), pv, 1);
        if (ret != 0)
            return ret;
        // scores per head: scale * q_h k_h^T (+ mask)
        vkl::GemmOp g = {};
        g.M = Lq;
        g.N = Lk;
        g.K = hd;
        g.a_bs = hd, g.a_rs = E, g.a_cs = 1;
        g.b_bs = hd, g.b_rs = 1, g.b_cs = E;
        g.o_bs = Lq * Lk, g.o_rs = Lk, g.o_cs = 1;
        g.alpha = scale;
        g.a_f32 = g.b_f32 = g.o_f32 = 1;
        const vk::VkBlob* mask = attn_mask ? vkl::blob_of(bottoms.back()) : nullptr;
        if (mask)
        {
            g.has_c = 1;
            g.cbeta = 1.f;
            g.c_bs = io.mask_head_step ? Lq * Lk : 0;
            g.c_rs = Lk;
            g.c_cs = 1;
        }
        ret = vkl::record_gemm(s, gemm, xq.get(), xk.get(), mask, score.get(), g, num_heads);
        if (ret != 0)
            return ret;
        struct
        {
            int outer, n, inner;
        } sp = {num_heads * Lq, Lk, 1};
        // softmax_row.comp: a work group of 64 per score row, up to the group
        // count every device allows in x
        ret = sp.outer <= 65535 ? s.dispatch(softmax_row, {score.get(), prob.get()}, &sp, sizeof(sp), (uint32_t)sp.outer * 64, 1, 1)
                                : s.dispatch(softmax, {score.get(), prob.get()}, &sp, sizeof(sp), 1, (uint32_t)sp.outer, 1);
        if (ret != 0)
            return ret;
        // per head: prob_h v_h into the head's columns
        vkl::GemmOp o = {};
        o.M = Lq;
        o.N = hd;
        o.K = Lk;
        o.a_bs = Lq * Lk, o.a_rs = Lk, o.a_cs = 1;
        o.b_bs = hd, o.b_rs = E, o.b_cs = 1;
        o.o_bs = hd, o.o_rs = E, o.o_cs = 1;
        o.alpha = 1.f;
        o.a_f32 = o.b_f32 = o.o_f32 = 1;
        ret = vkl::record_gemm(s, gemm, prob.get(), xv.get(), nullptr, attn.get(), o, num_heads);
        vkl::GemmOp po = vkl::linear_op(Lq, E, qdim, true);
        po.a_f32 = 1;
        if (ret == 0)
            ret = vkl::record_gemm(s, gemm, attn.get(), w[6].get(), w[7].get(), top.get(), po, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* gemm = nullptr;
    const vk::Pipeline* softmax = nullptr;
    const vk::Pipeline* softmax_row = nullptr; // score rows up to 65535: a work group each
    vk::VkBlobPtr w[8]; // q, k, v, out: weight then bias
};

DEFINE_LAYER_CREATOR(MultiHeadAttention_vulkan)

} // namespace kite
