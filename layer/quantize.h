#ifndef KITE_LAYER_QUANTIZE_H
#define KITE_LAYER_QUANTIZE_H

#include "layer.h"

namespace kite {

// fp32 -> int8: float2int8(x * scale), round half away from zero, clamp to
// [-127, 127]. scale_data has 1 value or one per row (dims 2) or
// channel (dims 3/4); dims 1 uses element 0 of the arrays (as ncnn).
class Quantize : public Layer
{
public:
    enum ParamId
    {
        PARAM_SCALE_DATA_SIZE = 0,
    };

    Quantize();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int scale_data_size;
    Mat scale_data;
};

} // namespace kite

#endif // KITE_LAYER_QUANTIZE_H
