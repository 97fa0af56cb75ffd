#ifndef KITE_LAYER_CONCAT_H
#define KITE_LAYER_CONCAT_H

#include "layer.h"

namespace kite {

// Joins its inputs along one axis. Axes follow ncnn (batch excluded, outermost
// first: dims 3 -> 0 c, 1 h, 2 w; dims 4 -> 0 c, 1 d, 2 h, 3 w); a negative
// axis counts from the end. All inputs must have the same dims and agree on
// every other axis.
class Concat : public Layer
{
public:
    enum ParamId
    {
        PARAM_AXIS = 0,
    };

    Concat();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int axis;
};

} // namespace kite

#endif // KITE_LAYER_CONCAT_H
