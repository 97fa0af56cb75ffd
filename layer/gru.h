#ifndef KITE_LAYER_GRU_H
#define KITE_LAYER_GRU_H

#include "layer.h"

namespace kite {

// GRU over a (input_size, T) sequence, ncnn gate order R U N with the reset
// applied after the recurrent product (ONNX linear_before_reset=1):
// n = tanh(W_xn x + b_wn + r * (W_hn h + b_bn)), h = (1 - u) * n + u * h.
// Weights per direction: W_xc (3*num_output x input_size), bias (4 rows of
// num_output: R, U, WN, BN), W_hc (3*num_output x num_output).
class GRU : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_OUTPUT = 0,
        PARAM_WEIGHT_DATA_SIZE = 1,
        PARAM_DIRECTION = 2,
        PARAM_INT8_SCALE_TERM = 8,
    };

    GRU();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int num_output;
    int weight_data_size;
    int direction;
    int input_size;
    Mat weight_xc_data;
    Mat bias_c_data;
    Mat weight_hc_data;
};

} // namespace kite

#endif // KITE_LAYER_GRU_H
