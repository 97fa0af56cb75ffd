#ifndef KITE_LAYER_BATCHNORM_H
#define KITE_LAYER_BATCHNORM_H

#include "layer.h"

namespace kite {

// y = slope * (x - mean) / sqrt(var + eps) + bias per channel (w of a 1-D
// blob, h of a 2-D one, c otherwise). Weights: slope, mean, var, bias.
class BatchNorm : public Layer
{
public:
    enum ParamId
    {
        PARAM_CHANNELS = 0,
        PARAM_EPS = 1,
    };

    BatchNorm();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int channels;
    float eps;
    Mat slope_data;
    Mat mean_data;
    Mat var_data;
    Mat bias_data;
    // y = b * x + a
    Mat a_data;
    Mat b_data;
};

// (channel count, values per channel, channel stride) of a blob, the channel
// axis being w (1-D), h (2-D) or c (3-D/4-D), as ncnn's per-channel layers use it
void per_channel_layout(const Mat& m, int& channels, size_t& size, size_t& step);

} // namespace kite

#endif // KITE_LAYER_BATCHNORM_H
