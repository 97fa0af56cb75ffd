#ifndef KITE_LAYER_EXP_H
#define KITE_LAYER_EXP_H

#include "layer.h"

namespace kite {

// y = base ^ (shift + scale x); base -1 means e (ncnn Exp; any dims, in place)
class Exp : public Layer
{
public:
    enum ParamId
    {
        PARAM_BASE = 0,
        PARAM_SCALE = 1,
        PARAM_SHIFT = 2,
    };

    Exp();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float base;
    float scale;
    float shift;
};

} // namespace kite

#endif // KITE_LAYER_EXP_H
