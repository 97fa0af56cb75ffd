#ifndef KITE_LAYER_ROIALIGN_H
#define KITE_LAYER_ROIALIGN_H

#include "layer.h"

namespace kite {

// ROI align, as ncnn's ROIAlign.
// Inputs: feature map (w, h, c) and one ROI (first 4 values of blob 1:
// x1, y1, x2, y2), scaled by spatial_scale (minus 0.5 when aligned; without
// aligned the ROI size is at least 1).
// version 0 (ncnn's original): each bin is clipped to the map and averages
// grid_h x grid_w bilinear samples (sampling_ratio, or ceil(clipped bin
// size)); empty bins give 0.
// version 1 (Detectron2): bins are not clipped; samples outside
// [-1, size] contribute 0, negative coordinates clamp to 0; the sum is divided
// by grid_h * grid_w (sampling_ratio or ceil(roi / pooled)).
// Sample points past the last row/column use the last row/column (ncnn reads
// out of bounds there). Output: (pooled_width, pooled_height, c).
class ROIAlign : public Layer
{
public:
    enum ParamId
    {
        PARAM_POOLED_WIDTH = 0,
        PARAM_POOLED_HEIGHT = 1,
        PARAM_SPATIAL_SCALE = 2,
        PARAM_SAMPLING_RATIO = 3,
        PARAM_ALIGNED = 4,
        PARAM_VERSION = 5,
    };

    ROIAlign();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int pooled_width;
    int pooled_height;
    float spatial_scale;
    int sampling_ratio;
    bool aligned;
    int version;
};

} // namespace kite

#endif // KITE_LAYER_ROIALIGN_H
