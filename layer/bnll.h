#ifndef KITE_LAYER_BNLL_H
#define KITE_LAYER_BNLL_H

#include "layer.h"

namespace kite {

// y = log(1 + exp(x)), computed without overflow (ncnn BNLL; any dims, in place)
class BNLL : public Layer
{
public:
    BNLL();
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;
};

} // namespace kite

#endif // KITE_LAYER_BNLL_H
