#ifndef KITE_LAYER_SWISH_H
#define KITE_LAYER_SWISH_H

#include "layer.h"

namespace kite {

// y = x / (1 + exp(-x)) (ncnn Swish; any dims, in place)
class Swish : public Layer
{
public:
    Swish();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_SWISH_H
