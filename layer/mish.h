#ifndef KITE_LAYER_MISH_H
#define KITE_LAYER_MISH_H

#include "layer.h"

namespace kite {

// y = x * tanh(log(exp(x) + 1)) (ncnn Mish; any dims, in place)
class Mish : public Layer
{
public:
    Mish();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_MISH_H
