#ifndef KITE_LAYER_LSTM_H
#define KITE_LAYER_LSTM_H

#include "layer.h"

namespace kite {

// LSTM over a (input_size, T) sequence, ncnn gate order I F O G:
// c = F*c + I*G, H = O*tanh(c), and with hidden_size != num_output a
// projection h = W_hr H. Weights per direction: W_xc (4*hidden x input_size),
// bias (4*hidden), W_hc (4*hidden x num_output), W_hr (num_output x hidden).
// Optional inputs/outputs 2 and 3: hidden (num_output, dirs), cell (hidden, dirs).
class LSTM : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_OUTPUT = 0,
        PARAM_WEIGHT_DATA_SIZE = 1,
        PARAM_DIRECTION = 2,
        PARAM_HIDDEN_SIZE = 3,
        PARAM_INT8_SCALE_TERM = 8,
    };

    LSTM();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int num_output;
    int weight_data_size;
    int direction;
    int hidden_size;
    int input_size;
    Mat weight_xc_data;
    Mat bias_c_data;
    Mat weight_hc_data;
    Mat weight_hr_data;
};

} // namespace kite

#endif // KITE_LAYER_LSTM_H
