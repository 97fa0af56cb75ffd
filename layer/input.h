#ifndef KITE_LAYER_INPUT_H
#define KITE_LAYER_INPUT_H

#include "layer.h"

namespace kite {

// The graph's entry point. The application sets its blob with
// Extractor::input; the declared shape is only a hint.
class Input : public Layer
{
public:
    enum ParamId
    {
        PARAM_W = 0,
        PARAM_H = 1,
        PARAM_C = 2,
        PARAM_D = 11,
    };

    Input();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int w;
    int h;
    int d;
    int c;
};

} // namespace kite

#endif // KITE_LAYER_INPUT_H
