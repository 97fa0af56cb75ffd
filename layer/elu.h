#ifndef KITE_LAYER_ELU_H
#define KITE_LAYER_ELU_H

#include "layer.h"

namespace kite {

// y = x < 0 ? alpha (exp(x) - 1) : x (ncnn ELU; any dims, in place)
class ELU : public Layer
{
public:
    enum ParamId
    {
        PARAM_ALPHA = 0,
    };

    ELU();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float alpha;
};

} // namespace kite

#endif // KITE_LAYER_ELU_H
