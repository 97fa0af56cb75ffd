#ifndef KITE_LAYER_EMBED_H
#define KITE_LAYER_EMBED_H

#include "layer.h"

namespace kite {

// Look up rows of a (num_output x input_dim) table: the input holds int32
// word indices (as ncnn reads them; out-of-range indices clamp to
// 0..input_dim-1), the output is (num_output, words) plus an optional bias.
class Embed : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_OUTPUT = 0,
        PARAM_INPUT_DIM = 1,
        PARAM_BIAS_TERM = 2,
        PARAM_WEIGHT_DATA_SIZE = 3,
        PARAM_INT8_SCALE_TERM = 18,
    };

    Embed();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int num_output;
    int input_dim;
    int bias_term;
    int weight_data_size;
    int int8_scale_term;
    Mat weight_data;
    Mat bias_data;
};

} // namespace kite

#endif // KITE_LAYER_EMBED_H
