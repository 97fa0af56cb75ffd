#ifndef KITE_LAYER_SELU_H
#define KITE_LAYER_SELU_H

#include "layer.h"

namespace kite {

// y = lambda * (x < 0 ? alpha (exp(x) - 1) : x) (ncnn SELU; any dims, in place)
class SELU : public Layer
{
public:
    enum ParamId
    {
        PARAM_ALPHA = 0,
        PARAM_LAMBDA = 1,
    };

    SELU();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float alpha;
    float lambda;
    float alpha_lambda; // alpha * lambda
};

} // namespace kite

#endif // KITE_LAYER_SELU_H
