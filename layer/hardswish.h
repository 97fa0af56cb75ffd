#ifndef KITE_LAYER_HARDSWISH_H
#define KITE_LAYER_HARDSWISH_H

#include "layer.h"

namespace kite {

// y = x * clamp(alpha x + beta, 0, 1) (ncnn HardSwish; any dims, in place)
class HardSwish : public Layer
{
public:
    enum ParamId
    {
        PARAM_ALPHA = 0,
        PARAM_BETA = 1,
    };

    HardSwish();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float alpha;
    float beta;
    float lower; // -beta / alpha
    float upper; // 1 / alpha + lower
};

} // namespace kite

#endif // KITE_LAYER_HARDSWISH_H
