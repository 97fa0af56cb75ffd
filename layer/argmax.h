#ifndef KITE_LAYER_ARGMAX_H
#define KITE_LAYER_ARGMAX_H

#include "layer.h"

namespace kite {

// Top-k over all elements of the blob (in c, d, h, w order), largest first;
// equal values: the higher index first (as ncnn's std::greater on
// (value, index) pairs). Output dims 2: (topk, 1) indices as floats, or with
// out_max_val (topk, 2): row 0 the values, row 1 the indices.
class ArgMax : public Layer
{
public:
    enum ParamId
    {
        PARAM_OUT_MAX_VAL = 0,
        PARAM_TOPK = 1,
    };

    ArgMax();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int out_max_val;
    int topk;
};

} // namespace kite

#endif // KITE_LAYER_ARGMAX_H
