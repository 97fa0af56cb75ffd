#ifndef KITE_LAYER_CUMULATIVESUM_H
#define KITE_LAYER_CUMULATIVESUM_H

#include "layer.h"

namespace kite {

// Inclusive running sum along one axis (ncnn numbering, outermost first,
// negative from the end), fp32, in place.
class CumulativeSum : public Layer
{
public:
    enum ParamId
    {
        PARAM_AXIS = 0,
    };

    CumulativeSum();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int axis;
};

} // namespace kite

#endif // KITE_LAYER_CUMULATIVESUM_H
