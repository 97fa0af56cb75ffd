#ifndef KITE_LAYER_CLIP_H
#define KITE_LAYER_CLIP_H

#include "layer.h"

namespace kite {

// y = min(max(x, min), max) (ncnn Clip; any dims, in place)
class Clip : public Layer
{
public:
    enum ParamId
    {
        PARAM_MIN = 0,
        PARAM_MAX = 1,
    };

    Clip();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float min;
    float max;
};

} // namespace kite

#endif // KITE_LAYER_CLIP_H
