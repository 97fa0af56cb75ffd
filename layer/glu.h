#ifndef KITE_LAYER_GLU_H
#define KITE_LAYER_GLU_H

#include "layer.h"

namespace kite {

// Gated linear unit: split the input in halves a, b along `axis` (ncnn axis
// convention, negative from the end) and output a * sigmoid(b).
class GLU : public Layer
{
public:
    enum ParamId
    {
        PARAM_AXIS = 0,
    };

    GLU();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int axis;
};

} // namespace kite

#endif // KITE_LAYER_GLU_H
