#ifndef KITE_LAYER_SOFTPLUS_H
#define KITE_LAYER_SOFTPLUS_H

#include "layer.h"

namespace kite {

// y = log(exp(x) + 1), any dims, in place
class Softplus : public Layer
{
public:
    Softplus();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_SOFTPLUS_H
