#ifndef KITE_LAYER_PADDING_H
#define KITE_LAYER_PADDING_H

#include "layer.h"

namespace kite {

// Pads a blob (as ncnn): dims 1 pads w (left/right); dims 2 also h
// (top/bottom); dims 3 also c (front/behind); dims 4 pads w, h and d
// (front/behind). type 0 constant (value, or per_channel_pad_data[output
// channel] when per_channel_pad_data_size is set; loaded from the model),
// 1 replicate the edge, 2 reflect (without repeating the edge; each pad must
// be smaller than the axis). fp32 only.
class Padding : public Layer
{
public:
    enum ParamId
    {
        PARAM_TOP = 0,
        PARAM_BOTTOM = 1,
        PARAM_LEFT = 2,
        PARAM_RIGHT = 3,
        PARAM_TYPE = 4,
        PARAM_VALUE = 5,
        PARAM_PER_CHANNEL_PAD_DATA_SIZE = 6,
        PARAM_FRONT = 7,
        PARAM_BEHIND = 8,
    };
    enum PadType
    {
        PAD_CONSTANT = 0,
        PAD_REPLICATE = 1,
        PAD_REFLECT = 2,
    };

    Padding();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int top, bottom, left, right;
    int type;
    float value;
    int per_channel_pad_data_size;
    int front, behind;
    Mat per_channel_pad_data;
};

} // namespace kite

#endif // KITE_LAYER_PADDING_H
