#ifndef KITE_LAYER_REQUANTIZE_H
#define KITE_LAYER_REQUANTIZE_H

#include "layer.h"

namespace kite {

// int32 -> int8: float2int8(activation(x * scale_in + bias) * scale_out).
// Each array has 1 value or one per row (dims 2) or channel (dims 3/4); dims 1
// uses element 0 (as ncnn); no bias when bias_data_size is 0.
class Requantize : public Layer
{
public:
    enum ParamId
    {
        PARAM_SCALE_IN_DATA_SIZE = 0,
        PARAM_SCALE_OUT_DATA_SIZE = 1,
        PARAM_BIAS_DATA_SIZE = 2,
        PARAM_ACTIVATION_TYPE = 3,
        PARAM_ACTIVATION_PARAMS = 4,
    };

    Requantize();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int scale_in_data_size;
    int scale_out_data_size;
    int bias_data_size;
    int activation_type;
    Mat activation_params;
    Mat scale_in_data;
    Mat scale_out_data;
    Mat bias_data;
};

} // namespace kite

#endif // KITE_LAYER_REQUANTIZE_H
