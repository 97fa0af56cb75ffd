// MultiHeadAttention for the CPU, fp32: the four projections and both attention
// products run through the packed SGEMM (sgemm_cpu.h), the softmax rows
// through the vectorised exp of layer/simd. The projection weights are packed
// once in create_pipeline, with the attention scale folded into q.
//
// Layouts (E = embed_dim, d = head_dim, Lq/Lk = rows of q and k/v):
//   qt, kt, vt  Lq x E / Lk x E: the projections, token-major as the input
//               (the SGEMM writes whole vectors of them: vector-rows weights)
//   s           Lq x Lk per head: scores, then probabilities
//   ot          E x Lq: head outputs, o_h^T = v_h^T p^T
// and the output projection reads ot as its B operand.
#include "multiheadattention.h"
#include "gpu/cpu_fallback.h"

#include "log.h"
#include "cpu/sgemm_cpu.h"
#include "simd/simd_math.h"

#include <vector>

namespace kite {
namespace KITE_ISA_NS {

namespace {

typedef simd::VF<KITE_SIMD_MAX_N> V;
typedef simd::VF<1> V1;

// row = softmax(row + mask) over n values (mask may be null)
static void softmax_row(float* row, const float* mask, int n)
{
    const int W = KITE_SIMD_MAX_N;
    if (mask)
    {
        int i = 0;
        for (; i + W <= n; i += W)
            V::store(row + i, V::add(V::load(row + i), V::load(mask + i)));
        for (; i < n; i++)
            row[i] += mask[i];
    }
    typename V::T vmax = V::set1(row[0]);
    int i = 0;
    for (; i + W <= n; i += W)
        vmax = V::max(vmax, V::load(row + i));
    float mx = V::reduce_max(vmax);
    for (; i < n; i++)
        mx = row[i] > mx ? row[i] : mx;
    typename V::T vsum = V::zero();
    const typename V::T vmx = V::set1(mx);
    i = 0;
    for (; i + W <= n; i += W)
    {
        typename V::T e = simd::exp_ps<V>(V::sub(V::load(row + i), vmx));
        V::store(row + i, e);
        vsum = V::add(vsum, e);
    }
    float sum = V::reduce_add(vsum);
    for (; i < n; i++)
    {
        row[i] = simd::exp_ps<V1>(row[i] - mx);
        sum += row[i];
    }
    const float inv = 1.f / sum;
    const typename V::T vinv = V::set1(inv);
    i = 0;
    for (; i + W <= n; i += W)
        V::store(row + i, V::mul(V::load(row + i), vinv));
    for (; i < n; i++)
        row[i] *= inv;
}

} // namespace

class MultiHeadAttention_cpu : public MultiHeadAttention
{
public:
    int create_pipeline(const Option& opt) override
    {
        // a second create_pipeline after light mode released the weights
        if (weights_released)
        {
            Mat q = loaded_q_weight(), k, v, o;
            loaded_weights(k, v, o);
            if (q.empty() || k.empty() || v.empty() || o.empty())
                return -100;
            q_weight_data = q;
            k_weight_data = k;
            v_weight_data = v;
            out_weight_data = o;
        }
        weights_released = false;
        int ret = MultiHeadAttention::create_pipeline(opt);
        if (ret != 0)
            return ret;
        // q' = scale * (Wq x + bq): the scale of the scores folded into q
        FastBuffer<float> wq;
        if (!wq.resize((size_t)embed_dim * qdim))
            return -100;
        const float* w = q_weight_data;
        for (size_t i = 0; i < wq.size(); i++)
            wq[i] = w[i] * scale;
        q_bias_scaled.resize(embed_dim);
        for (int i = 0; i < embed_dim; i++)
            q_bias_scaled[i] = q_bias_data[i] * scale;
        // A(o, k) = W[o * in + k]
        // vector rows: every projection's output is written transposed (crs == 1)
        if (!pack_a(MatView{wq.data(), (long)qdim, 1}, embed_dim, qdim, packed_q, true)
            || !pack_a(MatView{(const float*)k_weight_data, (long)kdim, 1}, embed_dim, kdim, packed_k, true)
            || !pack_a(MatView{(const float*)v_weight_data, (long)vdim, 1}, embed_dim, vdim, packed_v, true)
            || !pack_a(MatView{(const float*)out_weight_data, (long)embed_dim, 1}, qdim, embed_dim, packed_out, true))
            return -100;
        // light mode (as ncnn): the loaded weights go, their packed copies
        // hold them (q's scaled: exact where the scale is a power of two, as
        // 1/sqrt(head_dim) of 64 or 16, else to the float rounding); the
        // reference fallback and a later create_pipeline rebuild them
        // (loaded_weights, loaded_q_weight)
        if (opt.lightmode && scale != 0.f)
        {
            q_weight_data.release();
            k_weight_data.release();
            v_weight_data.release();
            out_weight_data.release();
            weights_released = true;
        }
        return 0;
    }

    Mat loaded_q_weight() const override
    {
        if (!weights_released)
            return q_weight_data;
        Mat q(packed_q.M * packed_q.K, (size_t)4u);
        if (q.empty())
            return q;
        unpack_a(packed_q, q, packed_q.K, 1);
        float* p = q;
        for (size_t i = 0; i < (size_t)packed_q.M * packed_q.K; i++)
            p[i] /= scale;
        return q;
    }

    void loaded_weights(Mat& k_weight, Mat& v_weight, Mat& out_weight) const override
    {
        if (!weights_released)
            return MultiHeadAttention::loaded_weights(k_weight, v_weight, out_weight);
        // A(o, i) = W[o * in + i]
        const PackedA* packs[3] = {&packed_k, &packed_v, &packed_out};
        Mat* dst[3] = {&k_weight, &v_weight, &out_weight};
        for (int i = 0; i < 3; i++)
        {
            dst[i]->create(packs[i]->M * packs[i]->K, (size_t)4u);
            if (dst[i]->empty())
                return;
            unpack_a(*packs[i], *dst[i], packs[i]->K, 1);
        }
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        for (const Mat& m : bottom_blobs)
            if (m.elempack != 1 || m.elemsize != 4u)
            {
                note_cpu_layer_on_reference();
                return MultiHeadAttention::forward(bottom_blobs, top_blobs, opt);
            }
        Inputs io;
        int ret = check_inputs(bottom_blobs, top_blobs, io);
        if (ret != 0)
            return ret;
        const int Lq = io.src_len, Lk = io.dst_len, E = embed_dim;
        const int d = E / num_heads;

        // pooled workspace, not zero-filled vectors: ViT's four 445 KB buffers a
        // layer were page-faulted and cleared on every forward
        Mat qt_m, kt_m, vt_m, ot_m;
        qt_m.create(E, Lq, 4u, opt.workspace_allocator);
        kt_m.create(E, Lk, 4u, opt.workspace_allocator);
        vt_m.create(E, Lk, 4u, opt.workspace_allocator);
        ot_m.create(Lq, E, 4u, opt.workspace_allocator);
        if (qt_m.empty() || kt_m.empty() || vt_m.empty() || ot_m.empty())
            return -100;
        float* qt = qt_m;
        float* kt = kt_m;
        float* vt = vt_m;
        float* ot = ot_m;
        // x^T(k, i) = x[i * in + k]; out^T(o, i) at qt[i * E + o]
        GemmEpilogue ep;
        ep.bias = q_bias_scaled.data();
        ret = sgemm(packed_q, MatView{(const float*)*io.q, 1, (long)qdim}, Lq, qt, 1, E, ep, opt);
        ep.bias = k_bias_data;
        if (ret == 0)
            ret = sgemm(packed_k, MatView{(const float*)*io.k, 1, (long)kdim}, Lk, kt, 1, E, ep, opt);
        ep.bias = v_bias_data;
        if (ret == 0)
            ret = sgemm(packed_v, MatView{(const float*)*io.v, 1, (long)vdim}, Lk, vt, 1, E, ep, opt);
        if (ret != 0)
            return ret;

        const float* mask = io.mask.empty() ? nullptr : (const float*)io.mask.data;
        Option one = opt;
        one.num_threads = 1;
        one.workspace_allocator = nullptr; // per-head operands are small; the pool may be unlocked
        int head_ret = 0;
        #pragma omp parallel num_threads(opt.num_threads)
        {
            FastBuffer<float> s;
            const bool have_s = s.resize((size_t)Lq * Lk);
            PackedA qa, va;
            const GemmEpilogue none;
            #pragma omp for schedule(dynamic)
            for (int h = 0; h < num_heads; h++)
            {
                // s(i, t) = sum_j q_h(i, j) k_h(t, j): A(i, j) = qt[i E + h d + j], B(j, t) = kt[t E + h d + j]
                if (!have_s || !pack_a(MatView{qt + (size_t)h * d, (long)E, 1}, Lq, d, qa))
                {
                    #pragma omp atomic write
                    head_ret = -100;
                    continue;
                }
                if (sgemm(qa, MatView{kt + (size_t)h * d, 1, (long)E}, Lk, s.data(), Lk, 1, none, one) != 0)
                {
                    #pragma omp atomic write
                    head_ret = -100;
                    continue;
                }
                for (int i = 0; i < Lq; i++)
                    softmax_row(s.data() + (size_t)i * Lk, mask ? mask + io.mask_head_step * h + (size_t)i * Lk : nullptr, Lk);
                // o_h^T(j, i) = sum_t v_h^T(j, t) p(i, t): A(j, t) = vt[t E + h d + j], B(t, i) = s[i Lk + t]
                if (!pack_a(MatView{vt + (size_t)h * d, 1, (long)E}, d, Lk, va)
                    || sgemm(va, MatView{s.data(), 1, (long)Lk}, Lq, ot + (size_t)h * d * Lq, Lq, 1, none, one) != 0)
                {
                    #pragma omp atomic write
                    head_ret = -100;
                }
            }
        }
        if (head_ret != 0)
            return head_ret;

        Mat& top = top_blobs[0];
        top.create(qdim, Lq, 4u, opt.blob_allocator);
        if (top.empty())
            return -100;
        // top(o, i) at top[i * qdim + o]: C(o, i) = sum_e Wout(o, e) ot(e, i)
        ep.bias = out_bias_data;
        return sgemm(packed_out, MatView{ot, (long)Lq, 1}, Lq, (float*)top.data, 1, (long)qdim, ep, opt);
    }

private:
    PackedA packed_q, packed_k, packed_v, packed_out;
    bool weights_released = false; // light mode released the q, k, v and out weights (the packed copies hold them)
    std::vector<float> q_bias_scaled;
};

DEFINE_LAYER_CREATOR(MultiHeadAttention_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
