#ifndef KITE_LAYER_SIGMOID_H
#define KITE_LAYER_SIGMOID_H

#include "layer.h"

namespace kite {

// y = 1 / (1 + exp(-x)) (ncnn Sigmoid; any dims, in place)
class Sigmoid : public Layer
{
public:
    Sigmoid();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_SIGMOID_H
