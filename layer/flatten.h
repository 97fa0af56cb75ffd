#ifndef KITE_LAYER_FLATTEN_H
#define KITE_LAYER_FLATTEN_H

#include "layer.h"

namespace kite {

// Any blob -> dims 1 of w*h*d*c elements, in c, d, h, w order.
class Flatten : public Layer
{
public:
    Flatten();
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_FLATTEN_H
