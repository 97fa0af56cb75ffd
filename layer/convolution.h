#ifndef KITE_LAYER_CONVOLUTION_H
#define KITE_LAYER_CONVOLUTION_H

#include "layer.h"

#include <vector>

namespace kite {

struct ConvInt8Job;

// 2-D convolution, ncnn's Convolution: weights [num_output][inch][kh][kw],
// fused activation, explicit or SAME padding with pad_value, int8 inference
// when the model has scales, and dynamic weights (inputs: blob, weight
// (kw, kh, inch, num_output), bias) when dynamic_weight is set.
class Convolution : public Layer
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
        PARAM_GROUP = 7, // read only by the grouped subclass (ConvolutionDepthWise)
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

    Convolution();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int create_pipeline(const Option& opt) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
    // int8 weights: the one bottom scale forward quantizes a float input with
    // (0 where the scales differ per group or the weights are float)
    float int8_input_scale() const override;
    int quantize_input(const Mat& bottom, Mat& top, const Option& opt) const override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

    // pads (left, right, top, bottom) of a w x h input for a kw x kh kernel
    // (default: this layer's) with this layer's dilations, strides and pad
    // params, SAME modes (-233/-234) resolved; may be negative (SAME cropping)
    void resolve_pads_2d(int w, int h, int kw, int kh, int pads[4]) const;
    void resolve_pads_2d(int w, int h, int pads[4]) const { resolve_pads_2d(w, h, kernel_w, kernel_h, pads); }

    // the fp32 weights in the loaded layout [num_output][inch_g][kh][kw]:
    // weight_data, or, where a CPU driver released it in light mode once it
    // held its own packed copy, a new Mat rebuilt from that copy (empty: out
    // of memory). The reference's fp32 forward reads its weights from here, so
    // a driver's rare fallbacks to the reference keep working.
    virtual Mat loaded_weights() const { return weight_data; }

protected:
    int forward_int8(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const;
    // the per-output dequantize scales (and requantize scales, 1 without an
    // int8 output) forward_int8 applies to the int32 sums, and the epilogue's
    // numerics (CONV_INT8_*): one place for the reference and the drivers
    int int8_epilogue(const Option& opt, std::vector<float>& scale_in, std::vector<float>& scale_out) const;
    // the int32 sums and epilogue of forward_int8 once the input is quantized
    // and the scales are set; optimised layers override it
    virtual void run_int8(const ConvInt8Job& job, int num_threads) const;
    // elempack of a 3-D fp32 (not requantized) int8-path output; run_int8 must
    // then write that layout (the reference: 1)
    virtual int int8_out_elempack() const { return 1; }
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
    int group;             // 1 unless grouped
    bool grouped;          // param 7 is read (the DepthWise subclass)
    const char* type_name; // for messages
    int int8_scale_term; // 0 none; > 0 weight/bottom scales; > 100 also a top scale (int8 output);
                         // grouped: 1/101 per-group weight scales, 2/102 one for all
    int activation_type;
    Mat activation_params;
    int dynamic_weight;

    Mat weight_data; // fp32, or int8 (loaded int8 or quantized in create_pipeline)
    Mat bias_data;
    Mat weight_data_int8_scales; // num_output (grouped: group)
    Mat bottom_blob_int8_scales; // 1 (grouped: group, expanded)
    Mat top_blob_int8_scales;    // 1 (grouped: group, expanded)
};

} // namespace kite

#endif // KITE_LAYER_CONVOLUTION_H
