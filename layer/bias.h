#ifndef KITE_LAYER_BIAS_H
#define KITE_LAYER_BIAS_H

#include "layer.h"

namespace kite {

// y = x + bias[c] per channel of a 3-D/4-D blob (ncnn Bias).
class Bias : public Layer
{
public:
    enum ParamId
    {
        PARAM_BIAS_DATA_SIZE = 0,
    };

    Bias();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int bias_data_size;
    Mat bias_data;
};

} // namespace kite

#endif // KITE_LAYER_BIAS_H
