#ifndef KITE_LAYER_ELTWISE_H
#define KITE_LAYER_ELTWISE_H

#include "layer.h"

namespace kite {

// Combines N inputs of the same shape element-wise (ncnn Eltwise):
// product, sum (optionally weighted by coeffs, one per input) or maximum.
class Eltwise : public Layer
{
public:
    enum ParamId
    {
        PARAM_OP_TYPE = 0,
        PARAM_COEFFS = 1,
    };

    enum OperationType
    {
        Operation_PROD = 0,
        Operation_SUM = 1,
        Operation_MAX = 2,
    };

    Eltwise();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int op_type;
    Mat coeffs; // float array, empty or one per input (SUM only)
};

} // namespace kite

#endif // KITE_LAYER_ELTWISE_H
