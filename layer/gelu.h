#ifndef KITE_LAYER_GELU_H
#define KITE_LAYER_GELU_H

#include "layer.h"

namespace kite {

// y = 0.5 x (1 + erf(x / sqrt(2))), or its tanh approximation when fast_gelu (ncnn GELU; any dims, in place)
class GELU : public Layer
{
public:
    enum ParamId
    {
        PARAM_FAST_GELU = 0,
    };

    GELU();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int fast_gelu;
};

} // namespace kite

#endif // KITE_LAYER_GELU_H
