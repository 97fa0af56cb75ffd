#ifndef KITE_LAYER_UNARYOP_H
#define KITE_LAYER_UNARYOP_H

#include "layer.h"

namespace kite {

// y = op(x) element-wise (ncnn UnaryOp; any dims, in place)
class UnaryOp : public Layer
{
public:
    enum ParamId
    {
        PARAM_OP_TYPE = 0,
    };

    enum OperationType
    {
        Operation_ABS = 0,
        Operation_NEG = 1,
        Operation_FLOOR = 2,
        Operation_CEIL = 3,
        Operation_SQUARE = 4,
        Operation_SQRT = 5,
        Operation_RSQRT = 6,
        Operation_EXP = 7,
        Operation_LOG = 8,
        Operation_SIN = 9,
        Operation_COS = 10,
        Operation_TAN = 11,
        Operation_ASIN = 12,
        Operation_ACOS = 13,
        Operation_ATAN = 14,
        Operation_RECIPROCAL = 15,
        Operation_TANH = 16,
        Operation_LOG10 = 17,
        Operation_ROUND = 18, // to nearest, ties to even
        Operation_TRUNC = 19,
        Operation_COUNT = 20,
    };

    UnaryOp();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

    // the scalar function of one op (what forward applies)
    static float apply(int op_type, float x);

public:
    int op_type;
};

} // namespace kite

#endif // KITE_LAYER_UNARYOP_H
