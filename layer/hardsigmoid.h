#ifndef KITE_LAYER_HARDSIGMOID_H
#define KITE_LAYER_HARDSIGMOID_H

#include "layer.h"

namespace kite {

// y = clamp(alpha x + beta, 0, 1) (ncnn HardSigmoid; any dims, in place)
class HardSigmoid : public Layer
{
public:
    enum ParamId
    {
        PARAM_ALPHA = 0,
        PARAM_BETA = 1,
    };

    HardSigmoid();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float alpha;
    float beta;
    float lower; // -beta / alpha
    float upper; // 1 / alpha + lower
};

} // namespace kite

#endif // KITE_LAYER_HARDSIGMOID_H
