#ifndef KITE_LAYER_TANH_H
#define KITE_LAYER_TANH_H

#include "layer.h"

namespace kite {

// y = tanh(x) (ncnn TanH; any dims, in place)
class TanH : public Layer
{
public:
    TanH();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_TANH_H
