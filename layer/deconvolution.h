#ifndef KITE_LAYER_DECONVOLUTION_H
#define KITE_LAYER_DECONVOLUTION_H

#include "layer.h"

namespace kite {

struct ConvView;
struct ConvGeometry;
struct Activation;

// 2-D transposed convolution, ncnn's Deconvolution: weights
// [num_output][inch][kh][kw], no kernel flip. The full output
// (w - 1) * stride + kernel_extent + output_pad is cut by the pads, or to
// output_w/output_h with SAME pads (-233 UPPER, -234 LOWER), as in ncnn.
class Deconvolution : public Layer
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
        PARAM_OUTPUT_PAD_RIGHT = 18,
        PARAM_OUTPUT_PAD_BOTTOM = 19,
        PARAM_OUTPUT_W = 20,
        PARAM_OUTPUT_H = 21,
        PARAM_DYNAMIC_WEIGHT = 28,
    };

    Deconvolution();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int num_output;
    int kernel_w;
    int kernel_h;
    int dilation_w;
    int dilation_h;
    int stride_w;
    int stride_h;
    int pad_left; // cut from the full output; -233/-234 with output_w/h: SAME_UPPER/SAME_LOWER
    int pad_right;
    int pad_top;
    int pad_bottom;
    int output_pad_right;
    int output_pad_bottom;
    int output_w;
    int output_h;
    int bias_term;
    int weight_data_size;
    int group;
    bool grouped;          // param 7 is read (the DepthWise subclass), else group = 1
    const char* type_name; // for messages
    int activation_type;
    Mat activation_params;
    int dynamic_weight; // not supported (load_param fails)

    Mat weight_data; // [num_output][inch/group][kh][kw]

    // the weights in the loaded layout: weight_data, or, where a CPU driver
    // released it in light mode once it held its own packed copy, a new Mat
    // rebuilt from that copy (empty: out of memory). The reference's forward
    // reads its weights from here.
    virtual Mat loaded_weights() const { return weight_data; }
    Mat bias_data;

protected:
    // the output size of an in_w x in_h input and the geometry for run_fp32
    // (g.pad_* = what is cut from the full output); -1 with a message when
    // the parameters give no output
    int output_geometry(int in_w, int in_h, ConvGeometry& g, int* outw, int* outh) const;
    // the fp32 product once the output is sized (g.pad_* = what is cut from
    // the full output); the reference's direct loops, drivers override it
    virtual int run_fp32(const ConvView& in, const ConvView& out, const ConvGeometry& g, const Activation& act,
                         const Option& opt) const;
};

} // namespace kite

#endif // KITE_LAYER_DECONVOLUTION_H
