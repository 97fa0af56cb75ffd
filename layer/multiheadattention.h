#ifndef KITE_LAYER_MULTIHEADATTENTION_H
#define KITE_LAYER_MULTIHEADATTENTION_H

#include "layer.h"

namespace kite {

// Multi-head attention (ncnn MultiHeadAttention). Inputs q (qdim, Lq) and
// optionally k (kdim, Lk), v (vdim, Lk): with one input k = v = q, with two
// v = k; with attn_mask the last input is an additive mask (Lk, Lq) or
// (Lk, Lq, num_heads). Weights in order: q weight (embed_dim x qdim), q bias,
// k weight (embed_dim x kdim), k bias, v weight, v bias, out weight
// (qdim x embed_dim), out bias; qdim = weight_data_size / embed_dim.
class MultiHeadAttention : public Layer
{
public:
    enum ParamId
    {
        PARAM_EMBED_DIM = 0,
        PARAM_NUM_HEADS = 1,
        PARAM_WEIGHT_DATA_SIZE = 2,
        PARAM_KDIM = 3,
        PARAM_VDIM = 4,
        PARAM_ATTN_MASK = 5,
        PARAM_SCALE = 6,
        PARAM_INT8_SCALE_TERM = 18,
    };

    MultiHeadAttention();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

    // the q, k, v and out projection weights as loaded: the *_weight_data, or,
    // where a CPU driver released them in light mode once it held its own
    // packed copies, new Mats rebuilt from those (empty: out of memory). The
    // reference's forward reads them from here.
    virtual Mat loaded_q_weight() const { return q_weight_data; }
    virtual void loaded_weights(Mat& k_weight, Mat& v_weight, Mat& out_weight) const
    {
        k_weight = k_weight_data;
        v_weight = v_weight_data;
        out_weight = out_weight_data;
    }

protected:
    // the inputs of one forward, checked against the parameters
    struct Inputs
    {
        const Mat* q;
        const Mat* k;
        const Mat* v;
        int src_len;           // rows of q
        int dst_len;           // rows of k and v
        Mat mask;              // empty without attn_mask
        size_t mask_head_step; // 0: one mask for every head
    };
    int check_inputs(const std::vector<Mat>& bottom_blobs, const std::vector<Mat>& top_blobs, Inputs& in) const;

public:
    int embed_dim;
    int num_heads;
    int weight_data_size;
    int qdim;
    int kdim;
    int vdim;
    int attn_mask;
    float scale;

    Mat q_weight_data;
    Mat q_bias_data;
    Mat k_weight_data;
    Mat k_bias_data;
    Mat v_weight_data;
    Mat v_bias_data;
    Mat out_weight_data;
    Mat out_bias_data;
};

} // namespace kite

#endif // KITE_LAYER_MULTIHEADATTENTION_H
