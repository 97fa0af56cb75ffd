#ifndef KITE_LAYER_PROPOSAL_H
#define KITE_LAYER_PROPOSAL_H

#include "layer.h"

namespace kite {

// Faster R-CNN region proposals (RPN), as ncnn's Proposal.
//
// Anchors: ratios {0.5, 1, 2} x scales {8, 16, 32} (fixed, as ncnn), built
// around (base_size / 2, base_size / 2) with w = round(base_size / sqrt(r)),
// h = round(w * r), times the scale; anchor k = ratio index * 3 + scale index.
// Inputs: scores (w, h, c >= 2 * 9; channels 9..17 are the foreground
// scores), bbox deltas (w, h, 4 * 9: dx, dy, dw, dh per anchor) and im_info
// (>= 3 values: image height, width, scale).
// Boxes are the anchors shifted by feat_stride per cell, decoded, clipped to
// [0, im - 1], filtered by width/height + 1 >= min_size * scale, sorted by
// score (ncnn's quicksort), truncated to pre_nms_topN (when > 0), suppressed
// with nms_thresh (two zero-area boxes count as overlapping, as ncnn's
// x86 build behaves) and truncated to after_nms_topN.
// Output 0: dims 3 (4, 1, n) of (x1, y1, x2, y2); optional output 1: dims 3
// (1, 1, n) scores. When no proposal survives, ncnn fails (its Mat::create of
// zero channels returns empty and forward returns -100); kite returns -1.
class Proposal : public Layer
{
public:
    enum ParamId
    {
        PARAM_FEAT_STRIDE = 0,
        PARAM_BASE_SIZE = 1,
        PARAM_PRE_NMS_TOPN = 2,
        PARAM_AFTER_NMS_TOPN = 3,
        PARAM_NMS_THRESH = 4,
        PARAM_MIN_SIZE = 5,
    };

    Proposal();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int feat_stride;
    int base_size;
    int pre_nms_topN;
    int after_nms_topN;
    float nms_thresh;
    int min_size;

    Mat ratios;
    Mat scales;
    Mat anchors; // (4, num_anchors)
};

} // namespace kite

#endif // KITE_LAYER_PROPOSAL_H
