#ifndef KITE_LAYER_RNN_H
#define KITE_LAYER_RNN_H

#include "layer.h"

namespace kite {

// Elman RNN over a (input_size, T) sequence: h_t = tanh(W_xc x_t + b + W_hc h_{t-1}).
// direction 0 forward, 1 reverse, 2 bidirectional (outputs concatenated per
// step). Weights per direction: W_xc (num_output x input_size), bias
// (num_output), W_hc (num_output x num_output). Optional second input / output:
// the hidden state (num_output, directions).
class RNN : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_OUTPUT = 0,
        PARAM_WEIGHT_DATA_SIZE = 1,
        PARAM_DIRECTION = 2,
        PARAM_INT8_SCALE_TERM = 8,
    };

    RNN();
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

// shared by RNN, LSTM, GRU: checks the sequence input and the optional state
// inputs, allocates the outputs. Returns 0 or -1/-100 after logging.
int recurrent_prepare(const char* type, const char* name, const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs,
                      int input_size, int num_directions, const int* state_sizes, int state_count, int out_size,
                      std::vector<std::vector<float> >& states, const Option& opt);

} // namespace kite

#endif // KITE_LAYER_RNN_H
