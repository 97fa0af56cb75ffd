// MultiHeadAttention (no mask) on OpenCL images: q/k/v projections and the
// output projection through the linear kernel, scores, softmax and the
// weighted values through the attn_* kernels (shaders/opencl/transformer.cl).
#include "multiheadattention.h"

#include "gpu/opencl/cl_ops.h"

namespace kite {

class MultiHeadAttention_opencl : public MultiHeadAttention
{
public:
    MultiHeadAttention_opencl() { support_opencl = true; }
    bool accept() const override { return attn_mask == 0 && num_heads > 0 && embed_dim % num_heads == 0; }
    int create_pipeline(const Option& opt) override
    {
        int ret = MultiHeadAttention::create_pipeline(opt);
        if (ret != 0)
            return ret;
        w_.ctx = cl::Context::get(opt.opencl_device);
        if (!w_.ctx || cl::prepare_programs(w_.ctx, opt, {"transformer"}) != 0)
            return -1;
        const Mat* ws[4] = {&q_weight_data, &k_weight_data, &v_weight_data, &out_weight_data};
        const Mat* bs[4] = {&q_bias_data, &k_bias_data, &v_bias_data, &out_bias_data};
        const int in_dim[4] = {qdim, kdim, vdim, embed_dim};
        const int out_dim[4] = {embed_dim, embed_dim, embed_dim, qdim};
        for (int i = 0; i < 4; i++)
        {
            ret = cl::upload_linear_weights(w_.ctx, *ws[i], out_dim[i], in_dim[i], w_.add());
            if (ret == 0)
                ret = cl::upload_argument(w_.ctx, *bs[i], out_dim[i], w_.add());
            if (ret != 0)
                return ret;
        }
        return 0;
    }
    int destroy_pipeline(const Option& opt) override
    {
        w_.release();
        return MultiHeadAttention::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* q = cl::blob(bottoms[0]);
        const cl::ClBlob* k = cl::blob(bottoms.size() > 1 ? bottoms[1] : bottoms[0]);
        const cl::ClBlob* v = cl::blob(bottoms.size() > 2 ? bottoms[2] : bottoms.size() > 1 ? bottoms[1] : bottoms[0]);
        if (bottoms.size() > 3 || q->dims() != 2 || k->dims() != 2 || v->dims() != 2 || q->shape.w != qdim
            || k->shape.w != kdim || v->shape.w != vdim || k->C != v->C)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        const int M = q->C, T = k->C, E = embed_dim, hd = embed_dim / num_heads;
        const std::vector<cl::Image>& W = w_.images;
        cl::ClBlobPtr xq, xk, xv, scores, probs, att, out;
        // the intermediates stay float with fp16 storage: only the layer's
        // output is rounded to half (as a CPU layer's fp16 output)
        int ret = cl::run_linear(s, q, W[0], W[1], 1, qdim, E, 1.f, 1.f, xq, true);
        if (ret == 0)
            ret = cl::run_linear(s, k, W[2], W[3], 1, kdim, E, 1.f, 1.f, xk, true);
        if (ret == 0)
            ret = cl::run_linear(s, v, W[4], W[5], 1, vdim, E, 1.f, 1.f, xv, true);
        if (ret == 0)
            ret = s.create_blob(cl::shape2(num_heads * T, M), scores, true);
        if (ret == 0)
            ret = s.create_blob(cl::shape2(num_heads * T, M), probs, true);
        if (ret == 0)
            ret = s.create_blob(cl::shape2(E, M), att, true);
        if (ret != 0)
            return ret;
        const int QB = cl::div4(M);
        cl_kernel ks = s.kernel("transformer", "attn_scores");
        cl_kernel km = s.kernel("transformer", "attn_softmax");
        cl_kernel kv = s.kernel("transformer", "attn_values");
        if (!ks || !km || !kv)
            return -1;
        cl::KernelArgs a1(ks);
        a1.img(xq->image).img(xk->image).img(scores->image).i(QB).i(T).i(num_heads).i(hd).f(scale);
        ret = cl::run2d(s, ks, "attn_scores", QB, num_heads * T, a1);
        if (ret != 0)
            return ret;
        cl::KernelArgs a2(km);
        a2.img(scores->image).img(probs->image).i(QB).i(T).i(num_heads);
        ret = cl::run_groups64(s, km, "attn_softmax", QB * num_heads, a2); // a work group per (qb, head)
        if (ret != 0)
            return ret;
        cl::KernelArgs a3(kv);
        a3.img(probs->image).img(xv->image).img(att->image).i(QB).i(T).i(E).i(hd);
        ret = cl::run2d(s, kv, "attn_values", QB, E, a3);
        if (ret == 0)
            ret = cl::run_linear(s, att.get(), W[6], W[7], 1, E, qdim, 1.f, 1.f, out);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

private:
    cl::Weights w_;
};

DEFINE_LAYER_CREATOR(MultiHeadAttention_opencl)

} // namespace kite
