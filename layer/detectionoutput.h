#ifndef KITE_LAYER_DETECTIONOUTPUT_H
#define KITE_LAYER_DETECTIONOUTPUT_H

#include "layer.h"

namespace kite {

// SSD detection output, as ncnn's DetectionOutput.
//
// Inputs: location (4 * num_prior deltas, any shape, read flat), confidence
// (Caffe: num_prior x num_class, read flat, class fastest; should be softmax
// probabilities), priorbox (PriorBox output: dims 2, w = 4 * num_prior, row 0
// boxes, row 1 variances).
// MXNet style (num_class == -233): confidence is dims 2 (w = num_prior,
// h = num_class), priorbox is dims 2 (w = 4, h = num_prior) and the
// variances come from params 5..8.
//
// Boxes are decoded CENTER_SIZE with the variances; for every class but 0
// (background) the boxes with score > confidence_threshold are sorted,
// truncated to nms_top_k and suppressed (IoU > nms_threshold); all classes
// are then sorted together and truncated to keep_top_k.
// Output: dims 2, w = 6, h = detections, rows (label, score, xmin, ymin,
// xmax, ymax). With no detections the output is an EMPTY Mat and forward
// returns 0, exactly as ncnn.
class DetectionOutput : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_CLASS = 0,
        PARAM_NMS_THRESHOLD = 1,
        PARAM_NMS_TOP_K = 2,
        PARAM_KEEP_TOP_K = 3,
        PARAM_CONFIDENCE_THRESHOLD = 4,
        PARAM_VARIANCE0 = 5,
        PARAM_VARIANCE1 = 6,
        PARAM_VARIANCE2 = 7,
        PARAM_VARIANCE3 = 8,
    };

    DetectionOutput();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int num_class;
    float nms_threshold;
    int nms_top_k;
    int keep_top_k;
    float confidence_threshold;
    float variances[4];
};

} // namespace kite

#endif // KITE_LAYER_DETECTIONOUTPUT_H
