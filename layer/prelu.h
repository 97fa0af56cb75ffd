#ifndef KITE_LAYER_PRELU_H
#define KITE_LAYER_PRELU_H

#include "layer.h"

namespace kite {

// y = x < 0 ? slope * x : x, with one slope shared by everything
// (num_slope 1) or one per w (dims 1), per row (dims 2), per channel (dims 3, 4)
class PReLU : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_SLOPE = 0,
    };

    PReLU();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int num_slope;
    Mat slope_data; // num_slope raw fp32
};

} // namespace kite

#endif // KITE_LAYER_PRELU_H
