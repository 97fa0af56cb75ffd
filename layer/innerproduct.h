#ifndef KITE_LAYER_INNERPRODUCT_H
#define KITE_LAYER_INNERPRODUCT_H

#include "layer.h"

namespace kite {

// Fully connected layer, ncnn's InnerProduct: weights [num_output][num_input].
// Any input is flattened to num_input values (output dims 1, num_output),
// except a dims-2 input of w == num_input, whose rows are separate vectors
// (output (num_output, h), also for h == 1, as ncnn's optimised layers do). Fused activation; int8 inference with
// per-output weight scales and one bottom scale.
class InnerProduct : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_OUTPUT = 0,
        PARAM_BIAS_TERM = 1,
        PARAM_WEIGHT_DATA_SIZE = 2,
        PARAM_INT8_SCALE_TERM = 8,
        PARAM_ACTIVATION_TYPE = 9,
        PARAM_ACTIVATION_PARAMS = 10,
    };

    InnerProduct();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int create_pipeline(const Option& opt) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
    // int8 weights: the one bottom scale forward quantizes a float input with
    // (0 where the scales differ per group or the weights are float)
    float int8_input_scale() const override;
    int quantize_input(const Mat& bottom, Mat& top, const Option& opt) const override;

    // the fp32 weights in the loaded layout [num_output][num_input]:
    // weight_data, or, where a CPU driver released it in light mode once it
    // held its own packed copy, a new Mat rebuilt from that copy (empty: out
    // of memory). The reference's fp32 forward reads its weights from here.
    virtual Mat loaded_weights() const { return weight_data; }

public:
    int num_output;
    int bias_term;
    int weight_data_size;
    int int8_scale_term;
    int activation_type;
    Mat activation_params;

    Mat weight_data; // fp32, or int8 (loaded int8 or quantized in create_pipeline)
    Mat bias_data;
    Mat weight_data_int8_scales; // num_output
    Mat bottom_blob_int8_scales; // 1
};

} // namespace kite

#endif // KITE_LAYER_INNERPRODUCT_H
