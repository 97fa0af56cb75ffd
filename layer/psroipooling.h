#ifndef KITE_LAYER_PSROIPOOLING_H
#define KITE_LAYER_PSROIPOOLING_H

#include "layer.h"

namespace kite {

// Position-sensitive ROI average pooling (R-FCN), as ncnn's PSROIPooling.
// Inputs: feature map (w, h, c) with c = output_dim * pooled_h * pooled_w and
// one ROI (first 4 values of blob 1: x1, y1, x2, y2). The ROI corners are
// rounded, the end gets +1, then scaled by spatial_scale; size at least 0.1.
// Output channel k, bin (ph, pw) averages input channel
// (k * pooled_h + ph) * pooled_w + pw over [floor(start), ceil(end)) clipped
// to the map; empty bins give 0. Output: (pooled_width, pooled_height,
// output_dim).
class PSROIPooling : public Layer
{
public:
    enum ParamId
    {
        PARAM_POOLED_WIDTH = 0,
        PARAM_POOLED_HEIGHT = 1,
        PARAM_SPATIAL_SCALE = 2,
        PARAM_OUTPUT_DIM = 3,
    };

    PSROIPooling();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int pooled_width;
    int pooled_height;
    float spatial_scale;
    int output_dim;
};

} // namespace kite

#endif // KITE_LAYER_PSROIPOOLING_H
