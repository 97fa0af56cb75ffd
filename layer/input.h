#ifndef KITE_LAYER_INPUT_H
#define KITE_LAYER_INPUT_H

#include "layer.h"

namespace kite {

// The graph's entry point. The application sets its blob with
// Extractor::input; the declared shape is only a hint, unless fixed_size is
// set (a converter found that the model computes correctly only at the size
// it was converted at): then Extractor::input refuses another shape.
class Input : public Layer
{
public:
    enum ParamId
    {
        PARAM_W = 0,
        PARAM_H = 1,
        PARAM_C = 2,
        PARAM_D = 11,
        PARAM_FIXED_SIZE = 20, // 1: only the declared shape is accepted
    };

    Input();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int w;
    int h;
    int d;
    int c;
    int fixed_size;
};

} // namespace kite

#endif // KITE_LAYER_INPUT_H
