#ifndef KITE_LAYER_ROIPOOLING_H
#define KITE_LAYER_ROIPOOLING_H

#include "layer.h"

namespace kite {

// ROI max pooling, as ncnn's ROIPooling.
// Inputs: feature map (w, h, c) and one ROI (first 4 values of blob 1:
// x1, y1, x2, y2 in image coordinates). The ROI is scaled by spatial_scale and
// rounded (half away from zero); its size is x2 - x1 + 1 (at least 1). Bin
// (ph, pw) covers [floor(ph * bin_h), ceil((ph + 1) * bin_h)) from y1, clipped
// to the map; empty bins give 0. Output: (pooled_width, pooled_height, c).
// bin = roi size / pooled size, exactly, as ncnn's source computes it. pip
// ncnn 1.0.20261020 differs between machines at bins whose start is an exact
// integer m > 0: on one machine it started them at m - 1 (as if bin were one
// ulp smaller), on another (2026-11-26) at m as its source says; kite follows
// the source.
class ROIPooling : public Layer
{
public:
    enum ParamId
    {
        PARAM_POOLED_WIDTH = 0,
        PARAM_POOLED_HEIGHT = 1,
        PARAM_SPATIAL_SCALE = 2,
    };

    ROIPooling();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int pooled_width;
    int pooled_height;
    float spatial_scale;
};

} // namespace kite

#endif // KITE_LAYER_ROIPOOLING_H
