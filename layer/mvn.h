#ifndef KITE_LAYER_MVN_H
#define KITE_LAYER_MVN_H

#include "layer.h"

namespace kite {

// Mean-variance normalisation of a 3-D blob: subtract the mean (per channel
// or across all channels) and, with normalize_variance, divide by
// sqrt(mean of squares) + eps. ncnn MVN.
class MVN : public Layer
{
public:
    enum ParamId
    {
        PARAM_NORMALIZE_VARIANCE = 0,
        PARAM_ACROSS_CHANNELS = 1,
        PARAM_EPS = 2,
    };

    MVN();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int normalize_variance;
    int across_channels;
    float eps;
};

} // namespace kite

#endif // KITE_LAYER_MVN_H
