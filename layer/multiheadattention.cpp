#include "multiheadattention.h"

#include "log.h"

#include <cmath>
#include <vector>

namespace kite {

MultiHeadAttention::MultiHeadAttention()
{
    one_blob_only = false;
    support_inplace = false;
}

int MultiHeadAttention::load_param(const ParamDict& pd)
{
    embed_dim = pd.get(PARAM_EMBED_DIM, 0);
    num_heads = pd.get(PARAM_NUM_HEADS, 1);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    kdim = pd.get(PARAM_KDIM, embed_dim);
    vdim = pd.get(PARAM_VDIM, embed_dim);
    attn_mask = pd.get(PARAM_ATTN_MASK, 0);
    const char* n = name.c_str();
    if (embed_dim <= 0 || num_heads <= 0 || embed_dim % num_heads != 0)
    {
        KITE_LOGE("MultiHeadAttention '%s': embed_dim %d must be a positive multiple of num_heads %d", n, embed_dim, num_heads);
        return -1;
    }
    scale = pd.get(PARAM_SCALE, 1.f / sqrtf((float)(embed_dim / num_heads)));
    if (weight_data_size <= 0 || weight_data_size % embed_dim != 0 || kdim <= 0 || vdim <= 0)
    {
        KITE_LOGE("MultiHeadAttention '%s': weight_data_size %d is not a positive multiple of embed_dim %d (kdim %d, vdim %d)",
                  n, weight_data_size, embed_dim, kdim, vdim);
        return -1;
    }
    qdim = weight_data_size / embed_dim;
    if (pd.get(PARAM_INT8_SCALE_TERM, 0))
    {
        KITE_LOGE("MultiHeadAttention '%s': int8 weights are not supported by the reference", n);
        return -1;
    }
    return 0;
}

int MultiHeadAttention::load_model(const ModelBin& mb)
{
    struct
    {
        Mat* m;
        int size;
        int type;
    } bufs[] = {
        {&q_weight_data, embed_dim * qdim, 0},
        {&q_bias_data, embed_dim, 1},
        {&k_weight_data, embed_dim * kdim, 0},
        {&k_bias_data, embed_dim, 1},
        {&v_weight_data, embed_dim * vdim, 0},
        {&v_bias_data, embed_dim, 1},
        {&out_weight_data, qdim * embed_dim, 0},
        {&out_bias_data, qdim, 1},
    };
    for (auto& b : bufs)
    {
        *b.m = mb.load(b.size, b.type);
        if (b.m->empty())
            return -100;
    }
    return 0;
}

// y[i][o] = bias[o] + sum_k x[i][k] * w[o][k], x: rows x in_dim, w: out_dim x in_dim
static void linear(const float* x, int rows, int in_dim, const float* w, const float* bias, int out_dim, float* y, const Option& opt)
{
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int i = 0; i < rows; i++)
    {
        for (int o = 0; o < out_dim; o++)
        {
            float sum = bias[o];
            const float* xr = x + (size_t)i * in_dim;
            const float* wr = w + (size_t)o * in_dim;
            for (int k = 0; k < in_dim; k++)
                sum += xr[k] * wr[k];
            y[(size_t)i * out_dim + o] = sum;
        }
    }
}

int MultiHeadAttention::check_inputs(const std::vector<Mat>& bottom_blobs, const std::vector<Mat>& top_blobs, Inputs& in) const
{
    const char* n = name.c_str();
    const int nin = (int)bottom_blobs.size();
    const int ndata = nin - (attn_mask ? 1 : 0);
    if (ndata < 1 || ndata > 3 || top_blobs.empty())
    {
        KITE_LOGE("MultiHeadAttention '%s': expects 1..3 inputs%s, got %d", n, attn_mask ? " plus a mask" : "", nin);
        return -1;
    }
    const Mat& q_blob = bottom_blobs[0];
    const Mat& k_blob = ndata >= 2 ? bottom_blobs[1] : q_blob;
    const Mat& v_blob = ndata == 3 ? bottom_blobs[2] : k_blob;
    if (q_blob.dims > 2 || k_blob.dims > 2 || v_blob.dims > 2)
    {
        KITE_LOGE("MultiHeadAttention '%s': q/k/v must be 2-D (dim, seqlen)", n);
        return -1;
    }
    const int src_len = q_blob.dims == 2 ? q_blob.h : 1;
    const int dst_len = k_blob.dims == 2 ? k_blob.h : 1;
    const int v_len = v_blob.dims == 2 ? v_blob.h : 1;
    if (q_blob.w != qdim || k_blob.w != kdim || v_blob.w != vdim || v_len != dst_len)
    {
        KITE_LOGE("MultiHeadAttention '%s': inputs q %d x %d, k %d x %d, v %d x %d do not match qdim %d kdim %d vdim %d",
                  n, q_blob.w, src_len, k_blob.w, dst_len, v_blob.w, v_len, qdim, kdim, vdim);
        return -1;
    }
    in.q = &q_blob;
    in.k = &k_blob;
    in.v = &v_blob;
    in.src_len = src_len;
    in.dst_len = dst_len;
    in.mask = Mat();
    in.mask_head_step = 0;
    if (attn_mask)
    {
        const Mat& mask = bottom_blobs.back();
        const bool shared = mask.dims == 2 && mask.w == dst_len && mask.h == src_len;
        const bool per_head = mask.dims == 3 && mask.w == dst_len && mask.h == src_len && mask.c == num_heads;
        if (!shared && !per_head)
        {
            KITE_LOGE("MultiHeadAttention '%s': mask must be (%d, %d) or (%d, %d, %d), got dims %d (%d, %d, %d)", n,
                      dst_len, src_len, dst_len, src_len, num_heads, mask.dims, mask.w, mask.h, mask.c);
            return -1;
        }
        in.mask = mask;
        in.mask_head_step = per_head ? mask.cstep : 0;
    }
    return 0;
}

int MultiHeadAttention::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    Inputs io;
    int ret = check_inputs(bottom_blobs, top_blobs, io);
    if (ret != 0)
        return ret;
    const Mat& q_blob = *io.q;
    const Mat& k_blob = *io.k;
    const Mat& v_blob = *io.v;
    const int src_len = io.src_len;
    const int dst_len = io.dst_len;
    const Mat& mask = io.mask;
    const size_t mask_head_step = io.mask_head_step;

    const int head_dim = embed_dim / num_heads;
    const Mat q_weight = loaded_q_weight();
    Mat k_weight, v_weight, out_weight;
    loaded_weights(k_weight, v_weight, out_weight);
    if (q_weight.empty() || k_weight.empty() || v_weight.empty() || out_weight.empty())
    {
        KITE_LOGE("MultiHeadAttention '%s': no weights (out of memory rebuilding them from the packed copies?)", name.c_str());
        return -100;
    }
    std::vector<float> xq((size_t)src_len * embed_dim), xk((size_t)dst_len * embed_dim), xv((size_t)dst_len * embed_dim);
    linear(q_blob, src_len, qdim, q_weight, q_bias_data, embed_dim, xq.data(), opt);
    linear(k_blob, dst_len, kdim, k_weight, k_bias_data, embed_dim, xk.data(), opt);
    linear(v_blob, dst_len, vdim, v_weight, v_bias_data, embed_dim, xv.data(), opt);

    std::vector<float> attn_out((size_t)src_len * embed_dim);
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int h = 0; h < num_heads; h++)
    {
        std::vector<float> score(dst_len);
        for (int i = 0; i < src_len; i++)
        {
            const float* qi = xq.data() + (size_t)i * embed_dim + h * head_dim;
            const float* mrow = attn_mask ? (const float*)mask.data + mask_head_step * h + (size_t)i * dst_len : nullptr;
            float max = -INFINITY;
            for (int t = 0; t < dst_len; t++)
            {
                const float* kt = xk.data() + (size_t)t * embed_dim + h * head_dim;
                float s = 0.f;
                for (int j = 0; j < head_dim; j++)
                    s += qi[j] * scale * kt[j];
                if (mrow)
                    s += mrow[t];
                score[t] = s;
                max = s > max ? s : max;
            }
            float sum = 0.f;
            for (int t = 0; t < dst_len; t++)
            {
                score[t] = expf(score[t] - max);
                sum += score[t];
            }
            for (int t = 0; t < dst_len; t++)
                score[t] /= sum;
            float* oi = attn_out.data() + (size_t)i * embed_dim + h * head_dim;
            for (int j = 0; j < head_dim; j++)
            {
                float acc = 0.f;
                for (int t = 0; t < dst_len; t++)
                    acc += score[t] * xv[(size_t)t * embed_dim + h * head_dim + j];
                oi[j] = acc;
            }
        }
    }

    Mat& top = top_blobs[0];
    top.create(qdim, src_len, 4u, opt.blob_allocator);
    if (top.empty())
        return -100;
    linear(attn_out.data(), src_len, embed_dim, out_weight, out_bias_data, qdim, top, opt);
    return 0;
}

DEFINE_LAYER_CREATOR(MultiHeadAttention)

} // namespace kite
