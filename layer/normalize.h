#ifndef KITE_LAYER_NORMALIZE_H
#define KITE_LAYER_NORMALIZE_H

#include "layer.h"

namespace kite {

// L2 normalisation of a 3-D blob (ncnn/caffe-SSD Normalize): over the whole
// blob (across_spatial and across_channel), over each channel's plane
// (across_spatial only), over the channels at each position (across_channel
// only) or not at all (neither: ncnn leaves the blob as is), then a scale (one shared value or one
// per channel). eps_mode: 0 1/sqrt(s + eps), 1 1/max(sqrt(s), eps),
// 2 1/sqrt(max(s, eps)).
class Normalize : public Layer
{
public:
    enum ParamId
    {
        PARAM_ACROSS_SPATIAL = 0,
        PARAM_CHANNEL_SHARED = 1,
        PARAM_EPS = 2,
        PARAM_SCALE_DATA_SIZE = 3,
        PARAM_ACROSS_CHANNEL = 4,
        PARAM_EPS_MODE = 9,
    };

    Normalize();
    int load_param(const ParamDict& pd) override;
    int load_model(const ModelBin& mb) override;
    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override;

public:
    int across_spatial;
    int across_channel;
    int channel_shared;
    float eps;
    int eps_mode;
    int scale_data_size;
    Mat scale_data;

private:
    float inv_norm(float ssum) const;
};

} // namespace kite

#endif // KITE_LAYER_NORMALIZE_H
