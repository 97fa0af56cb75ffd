#ifndef KITE_LAYER_DECONVOLUTION3D_H
#define KITE_LAYER_DECONVOLUTION3D_H

#include "layer.h"

namespace kite {

// 3-D transposed convolution over a dims-4 blob (w, h, d, c); output (outw, outh, outd, num_output), ncnn's Deconvolution3D: fused activation.
// Weights [num_output][channels/group][kd][kh][kw];
// the full output (in - 1) * stride + kernel_extent + output_pad is cut by the
// pads, or to output_w/h/d with SAME pads (-233/-234), as in ncnn.
// dynamic_weight is not supported.
class Deconvolution3D : public Layer
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
        PARAM_KERNEL_H = 11,
        PARAM_DILATION_H = 12,
        PARAM_STRIDE_H = 13,
        PARAM_PAD_TOP = 14,
        PARAM_PAD_RIGHT = 15,
        PARAM_PAD_BOTTOM = 16,
        PARAM_PAD_BEHIND = 17,
        PARAM_OUTPUT_PAD_RIGHT = 18,
        PARAM_OUTPUT_PAD_BOTTOM = 19,
        PARAM_OUTPUT_PAD_BEHIND = 20,
        PARAM_KERNEL_D = 21,
        PARAM_DILATION_D = 22,
        PARAM_STRIDE_D = 23,
        PARAM_PAD_FRONT = 24,
        PARAM_OUTPUT_W = 25,
        PARAM_OUTPUT_H = 26,
        PARAM_OUTPUT_D = 27,
        PARAM_DYNAMIC_WEIGHT = 28,
    };

    Deconvolution3D();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int num_output;
    int kernel_w;
    int kernel_h;
    int kernel_d;
    int dilation_w;
    int dilation_h;
    int dilation_d;
    int stride_w;
    int stride_h;
    int stride_d;
    int pad_left;
    int pad_right;
    int pad_top;
    int pad_bottom;
    int pad_front;
    int pad_behind;
    int output_pad_right;
    int output_pad_bottom;
    int output_pad_behind;
    int output_w;
    int output_h;
    int output_d;
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

#endif // KITE_LAYER_DECONVOLUTION3D_H
