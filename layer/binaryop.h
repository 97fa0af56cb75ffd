#ifndef KITE_LAYER_BINARYOP_H
#define KITE_LAYER_BINARYOP_H

#include "layer.h"

namespace kite {

// c = op(a, b) element-wise with broadcasting (ncnn BinaryOp).
//
// Two inputs, or one input and the scalar b when with_scalar (then in place).
// Broadcasting follows ncnn: the output has the larger rank; the input of lower
// rank is first expanded on its inner axes:
//   1-D [n] against 2-D [w,h]:      per row if n == h, else along w
//   1-D [n] against 3-D/4-D:        per channel if n == c, else along w
//   2-D [w,h] against 3-D [W,H,C]:  as [1,w,h] (w == H rows, h == C channels)
//   2-D [w,h] against 4-D:          as [1,1,w,h] (w == D, h == C)
//   3-D [w,h,c] against 4-D:        as [1,w,h,c] (w == H, h == D, c == C)
// then every axis must be equal or 1 in one of the two, and size-1 axes repeat.
class BinaryOp : public Layer
{
public:
    enum ParamId
    {
        PARAM_OP_TYPE = 0,
        PARAM_WITH_SCALAR = 1,
        PARAM_B = 2,
    };

    enum OperationType
    {
        Operation_ADD = 0,
        Operation_SUB = 1,
        Operation_MUL = 2,
        Operation_DIV = 3,
        Operation_MAX = 4,
        Operation_MIN = 5,
        Operation_POW = 6,
        Operation_RSUB = 7,   // b - a
        Operation_RDIV = 8,   // b / a
        Operation_RPOW = 9,   // b ^ a
        Operation_ATAN2 = 10, // atan2(a, b)
        Operation_RATAN2 = 11, // atan2(b, a)
        Operation_COUNT = 12,
    };

    BinaryOp();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

    // the scalar function of one op (what forward applies to each pair)
    static float apply(int op_type, float a, float b);

public:
    int op_type;
    int with_scalar;
    float b;
};

} // namespace kite

#endif // KITE_LAYER_BINARYOP_H
