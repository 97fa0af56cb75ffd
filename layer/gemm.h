#ifndef KITE_LAYER_GEMM_H
#define KITE_LAYER_GEMM_H

#include "layer.h"

namespace kite {

// out = alpha * (A * B + beta * C), ncnn's Gemm.
// A is M x K (K x M stored when transA), B is K x N (N x K stored when transB);
// a 2-D blob is (w = columns, h = rows), a 3-D blob (w, 1, c) holds one row
// per channel. Constant A/B/C come from the model in that order; C broadcasts
// as a scalar (0), per row M (1, 2), full M x N (3) or per column N (4).
class Gemm : public Layer
{
public:
    enum ParamId
    {
        PARAM_ALPHA = 0,
        PARAM_BETA = 1,
        PARAM_TRANS_A = 2,
        PARAM_TRANS_B = 3,
        PARAM_CONSTANT_A = 4,
        PARAM_CONSTANT_B = 5,
        PARAM_CONSTANT_C = 6,
        PARAM_CONSTANT_M = 7,
        PARAM_CONSTANT_N = 8,
        PARAM_CONSTANT_K = 9,
        PARAM_CONSTANT_BROADCAST_TYPE_C = 10,
        PARAM_OUTPUT_N1M = 11,
        PARAM_OUTPUT_ELEMPACK = 12,
        PARAM_OUTPUT_ELEMTYPE = 13,
        PARAM_OUTPUT_TRANSPOSE = 14,
        PARAM_INT8_SCALE_TERM = 18,
        PARAM_CONSTANT_TILE_M = 20,
        PARAM_CONSTANT_TILE_N = 21,
        PARAM_CONSTANT_TILE_K = 22,
    };

    enum BroadcastC
    {
        BROADCAST_C_SCALAR = 0,
        BROADCAST_C_M = 1,
        BROADCAST_C_M1 = 2,
        BROADCAST_C_MN = 3,
        BROADCAST_C_1N = 4,
    };

    Gemm();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

    // the constant B as loaded: B_data, or, where a CPU driver released it in
    // light mode once it held its own packed copy, a new Mat rebuilt from that
    // copy (empty: out of memory). The reference's forward reads B from here.
    virtual Mat loaded_B_data() const { return B_data; }
    // how C (a constant or an input: its shape decides) broadcasts over the M x
    // N output; checks its size; an empty C is fine. Logged -1 on a mismatch.
    int resolve_c(const Mat& C, int M, int N, int& broadcast_type_C) const;

public:
    float alpha;
    float beta;
    int transA;
    int transB;
    int constantA;
    int constantB;
    int constantC;
    int constantM;
    int constantN;
    int constantK;
    int constant_broadcast_type_C;
    int output_N1M;
    int output_elempack;
    int output_elemtype;
    int output_transpose;
    int int8_scale_term;

    Mat A_data;
    Mat B_data;
    Mat C_data;
};

} // namespace kite

#endif // KITE_LAYER_GEMM_H
