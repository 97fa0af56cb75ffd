#ifndef KITE_LAYER_CONVOLUTIONDEPTHWISE_H
#define KITE_LAYER_CONVOLUTIONDEPTHWISE_H

#include "layer.h"

namespace kite {

struct ConvInt8Job;

// Grouped 2-D convolution, ncnn's ConvolutionDepthWise: group == channels ==
// num_output is depthwise, otherwise channels and num_output are split into
// `group` groups. Weights [group][num_output/group][channels/group][kh][kw].
// int8: int8_scale_term 1/101 loads one weight scale per group, 2/102 one for
// all; > 100 also loads a top scale and produces int8.
class ConvolutionDepthWise : public Layer
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
        PARAM_GROUP = 7,
        PARAM_INT8_SCALE_TERM = 8,
        PARAM_ACTIVATION_TYPE = 9,
        PARAM_ACTIVATION_PARAMS = 10,
        PARAM_KERNEL_H = 11,
        PARAM_DILATION_H = 12,
        PARAM_STRIDE_H = 13,
        PARAM_PAD_TOP = 14,
        PARAM_PAD_RIGHT = 15,
        PARAM_PAD_BOTTOM = 16,
        PARAM_PAD_VALUE = 18,
        PARAM_DYNAMIC_WEIGHT = 19,
    };

    ConvolutionDepthWise();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int create_pipeline(const Option& opt) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

protected:
    int forward_int8(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const;
    // the int32 sums and epilogue of forward_int8 once the input is quantized
    // and the scales are set; optimised layers override it
    virtual void run_int8(const ConvInt8Job& job, int num_threads) const;
    // shared by the static and dynamic paths
    int forward_fp32(const Mat& bottom_blob, Mat& top_blob, const float* weight, const float* bias,
                     int kw, int kh, int outch, int inch_g, const Option& opt) const;

public:
    int num_output;
    int kernel_w;
    int kernel_h;
    int dilation_w;
    int dilation_h;
    int stride_w;
    int stride_h;
    int pad_left; // -233 SAME_UPPER, -234 SAME_LOWER
    int pad_right;
    int pad_top;
    int pad_bottom;
    float pad_value;
    int bias_term;
    int weight_data_size;
    int group;
    int int8_scale_term; // 0 none; 1/101 per-group weight scales; 2/102 one weight scale; > 100 int8 output
    int activation_type;
    Mat activation_params;
    int dynamic_weight;

    Mat weight_data; // fp32, or int8 (loaded int8 or quantized in create_pipeline)
    Mat bias_data;
    Mat weight_data_int8_scales; // group (expanded from 1 for 2/102)
    Mat bottom_blob_int8_scales; // group (expanded from 1)
    Mat top_blob_int8_scales;    // group (expanded from 1)
};

} // namespace kite

#endif // KITE_LAYER_CONVOLUTIONDEPTHWISE_H
