#ifndef KITE_LAYER_REDUCTION_H
#define KITE_LAYER_REDUCTION_H

#include "layer.h"

namespace kite {

// Reduce over some or all axes (ncnn Reduction). Axes use ncnn's convention:
// counted from the outermost of the blob's own dims (dims 3: 0 = c, 1 = h,
// 2 = w), negative from the end; a 1-D blob always reduces w. Without
// keepdims the reduced axes disappear (all of them: a 1-element 1-D blob).
// The result is multiplied by coeff (after sqrt/log for L2/LogSum/LogSumExp,
// after dividing by the count for Mean).
class Reduction : public Layer
{
public:
    enum ParamId
    {
        PARAM_OPERATION = 0,
        PARAM_REDUCE_ALL = 1,
        PARAM_COEFF = 2,
        PARAM_AXES = 3,
        PARAM_KEEPDIMS = 4,
        PARAM_FIXBUG0 = 5,
    };
    enum Operation
    {
        OP_SUM = 0,
        OP_ASUM = 1,
        OP_SUMSQ = 2,
        OP_MEAN = 3,
        OP_MAX = 4,
        OP_MIN = 5,
        OP_PROD = 6,
        OP_L1 = 7,
        OP_L2 = 8,
        OP_LOGSUM = 9,
        OP_LOGSUMEXP = 10,
    };

    Reduction();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

    // which of the logical axes of a `dims`-D blob (outermost first) this
    // layer reduces; 0, or -1 after logging an axis out of range
    int reduced_axes(int dims, bool reduce[4]) const;

public:
    int operation;
    int reduce_all;
    float coeff;
    Mat axes;
    int keepdims;
};

} // namespace kite

#endif // KITE_LAYER_REDUCTION_H
