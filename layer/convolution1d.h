#ifndef KITE_LAYER_CONVOLUTION1D_H
#define KITE_LAYER_CONVOLUTION1D_H

#include "layer.h"

namespace kite {

// 1-D convolution over a dims-2 blob (w, h = channels); output (outw, num_output), ncnn's Convolution1D: fused activation.
// Weights [num_output][channels/group][kw].
// dynamic_weight is not supported.
class Convolution1D : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_OUTPUT = 0,
        PARAM_KERNEL_W = 1,
        PARAM_DILATION_W = 2,
        PARAM_STRIDE_W = 3,
        PARAM_PAD_LEFT = 4,
        PARAM_BIAS_TERM = 5,
        PARAM_WEIGHT_DATA_SIZE = 6,
        PARAM_GROUP = 7, // read only by the grouped subclass
        PARAM_ACTIVATION_TYPE = 9,
        PARAM_ACTIVATION_PARAMS = 10,
        PARAM_PAD_RIGHT = 15,
        PARAM_PAD_VALUE = 18,
        PARAM_DYNAMIC_WEIGHT = 19,
    };

    Convolution1D();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int num_output;
    int kernel_w;
    int dilation_w;
    int stride_w;
    int pad_left;
    int pad_right;
    float pad_value;
    int bias_term;
    int weight_data_size;
    int group;
    bool grouped;          // param 7 is read (the DepthWise subclass), else group = 1
    const char* type_name; // for messages
    int activation_type;
    Mat activation_params;
    int dynamic_weight;

    Mat weight_data;
    Mat bias_data;
};

} // namespace kite

#endif // KITE_LAYER_CONVOLUTION1D_H
