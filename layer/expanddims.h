#ifndef KITE_LAYER_EXPANDDIMS_H
#define KITE_LAYER_EXPANDDIMS_H

#include "layer.h"

namespace kite {

// Inserts size-1 axes (numpy.expand_dims). axes (array param 3) are positions
// in the output's logical axes (outermost first, negative from the end); the
// output may have at most 4 dims. As in current ncnn, the legacy flags
// expand_w/h/d/c (0, 1, 11, 2) are read but have no effect.
class ExpandDims : public Layer
{
public:
    enum ParamId
    {
        PARAM_EXPAND_W = 0,
        PARAM_EXPAND_H = 1,
        PARAM_EXPAND_C = 2,
        PARAM_AXES = 3,
        PARAM_EXPAND_D = 11,
    };

    ExpandDims();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int expand_w, expand_h, expand_d, expand_c;
    Mat axes;
};

} // namespace kite

#endif // KITE_LAYER_EXPANDDIMS_H
