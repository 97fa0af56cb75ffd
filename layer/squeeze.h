#ifndef KITE_LAYER_SQUEEZE_H
#define KITE_LAYER_SQUEEZE_H

#include "layer.h"

namespace kite {

// Drops size-1 axes. axes (array param 3; ncnn numbering, outermost first,
// negative from the end) or, without axes, the flags squeeze_w/h/d/c
// (0, 1, 11, 2) choose the candidates; a chosen axis whose size is not 1 is
// kept. Squeezing everything leaves a dims 1 blob of one element.
class Squeeze : public Layer
{
public:
    enum ParamId
    {
        PARAM_SQUEEZE_W = 0,
        PARAM_SQUEEZE_H = 1,
        PARAM_SQUEEZE_C = 2,
        PARAM_AXES = 3,
        PARAM_SQUEEZE_D = 11,
    };

    Squeeze();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int squeeze_w, squeeze_h, squeeze_d, squeeze_c;
    Mat axes;
};

} // namespace kite

#endif // KITE_LAYER_SQUEEZE_H
