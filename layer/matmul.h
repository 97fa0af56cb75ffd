#ifndef KITE_LAYER_MATMUL_H
#define KITE_LAYER_MATMUL_H

#include "layer.h"

namespace kite {

// numpy-style matmul of two blobs (ncnn MatMul). The last two axes (h, w)
// are the matrix, leading axes (c, d) broadcast when equal or 1; a 1-D
// operand is a vector whose axis disappears from the result. transB: B holds
// N x K (w = K) instead of K x N.
class MatMul : public Layer
{
public:
    enum ParamId
    {
        PARAM_TRANS_B = 0,
    };

    MatMul();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int transB;
};

} // namespace kite

#endif // KITE_LAYER_MATMUL_H
