#ifndef KITE_LAYER_DROPOUT_H
#define KITE_LAYER_DROPOUT_H

#include "layer.h"

namespace kite {

// inference-time dropout: y = scale x (a no-op for scale 1) (ncnn Dropout; any dims, in place)
class Dropout : public Layer
{
public:
    enum ParamId
    {
        PARAM_SCALE = 0,
    };

    Dropout();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    float scale;
};

} // namespace kite

#endif // KITE_LAYER_DROPOUT_H
