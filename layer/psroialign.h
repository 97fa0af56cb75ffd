#ifndef KITE_LAYER_PSROIALIGN_H
#define KITE_LAYER_PSROIALIGN_H

#include "layer.h"

namespace kite {

// Position-sensitive ROI align (kite extension; the op MACE calls
// PSROI_ALIGN, here in NCHW and with ncnn-style ROI input). Not in ncnn.
//
// Inputs: feature map (w, h, c) with c = output_dim * pooled_h * pooled_w,
// and one ROI in image coordinates: blob 1 holds either 4 values
// (x1, y1, x2, y2) or 5 values (batch_index, x1, y1, x2, y2; batch_index must
// be 0).
//
// ROI, as MACE / R-FCN: start = (x1, y1) * spatial_scale,
// end = (x2 + 1, y2 + 1) * spatial_scale, size = max(end - start, 0.1);
// bin = size / pooled.
// Sampling, as torchvision's ps_roi_align (MACE has no sampling_ratio and
// its own ad-hoc interpolation; kite uses the standard one): bin (ph, pw)
// averages grid_h x grid_w bilinear samples at
// y = start_y + ph * bin_h + (iy + 0.5) * bin_h / grid_h (x likewise), with
// grid = sampling_ratio if > 0, else ceil(bin). A sample with y < -1 or
// y > h (x likewise) contributes 0; otherwise negative coordinates clamp to
// 0 and coordinates at or past the last row/column use it. The sum is
// divided by grid_h * grid_w.
// Output channel k, bin (ph, pw) reads input channel
// (k * pooled_h + ph) * pooled_w + pw (as PSROIPooling).
// Output: (pooled_width, pooled_height, output_dim).
class PSROIAlign : public Layer
{
public:
    enum ParamId
    {
        PARAM_POOLED_WIDTH = 0,
        PARAM_POOLED_HEIGHT = 1,
        PARAM_SPATIAL_SCALE = 2,
        PARAM_OUTPUT_DIM = 3,
        PARAM_SAMPLING_RATIO = 4,
    };

    PSROIAlign();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int pooled_width;
    int pooled_height;
    float spatial_scale;
    int output_dim;
    int sampling_ratio;
};

} // namespace kite

#endif // KITE_LAYER_PSROIALIGN_H
