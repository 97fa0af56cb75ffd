#ifndef KITE_LAYER_THRESHOLD_H
#define KITE_LAYER_THRESHOLD_H

#include "layer.h"

namespace kite {

// y = x > threshold ? 1 : 0 (ncnn Threshold; any dims, in place)
class Threshold : public Layer
{
public:
    enum ParamId
    {
        PARAM_THRESHOLD = 0,
    };

    Threshold();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float threshold;
};

} // namespace kite

#endif // KITE_LAYER_THRESHOLD_H
