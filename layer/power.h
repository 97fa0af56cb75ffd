#ifndef KITE_LAYER_POWER_H
#define KITE_LAYER_POWER_H

#include "layer.h"

namespace kite {

// y = (shift + scale x) ^ power (ncnn Power; any dims, in place)
class Power : public Layer
{
public:
    enum ParamId
    {
        PARAM_POWER = 0,
        PARAM_SCALE = 1,
        PARAM_SHIFT = 2,
    };

    Power();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float power;
    float scale;
    float shift;
};

} // namespace kite

#endif // KITE_LAYER_POWER_H
