#ifndef KITE_LAYER_RELU_H
#define KITE_LAYER_RELU_H

#include "layer.h"

namespace kite {

// y = x > 0 ? x : slope * x
class ReLU : public Layer
{
public:
    enum ParamId
    {
        PARAM_SLOPE = 0,
    };

    ReLU();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float slope;
};

} // namespace kite

#endif // KITE_LAYER_RELU_H
