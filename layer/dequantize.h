#ifndef KITE_LAYER_DEQUANTIZE_H
#define KITE_LAYER_DEQUANTIZE_H

#include "layer.h"

namespace kite {

// int32 -> fp32: x * scale + bias. scale_data / bias_data have 1 value or one
// per row (dims 2) or channel (dims 3/4); dims 1 uses element 0 (as ncnn); no bias when
// bias_data_size is 0.
class Dequantize : public Layer
{
public:
    enum ParamId
    {
        PARAM_SCALE_DATA_SIZE = 0,
        PARAM_BIAS_DATA_SIZE = 1,
    };

    Dequantize();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int scale_data_size;
    int bias_data_size;
    Mat scale_data;
    Mat bias_data;
};

} // namespace kite

#endif // KITE_LAYER_DEQUANTIZE_H
