#ifndef KITE_LAYER_YOLOV3DETECTIONOUTPUT_H
#define KITE_LAYER_YOLOV3DETECTIONOUTPUT_H

#include "layer.h"

namespace kite {

// YOLOv3 detection output, as ncnn's Yolov3DetectionOutput.
//
// Inputs: N feature maps (w, h, c) with c = num_box * (4 + 1 + num_class);
// per box the channels are x, y, w, h, objectness, class scores (raw logits).
// Input b uses anchors biases[2 * mask[b * num_box + k]] (w, h) for box k,
// and the network size net_w = (int)(anchors_scale[b] * w) (same for h).
//
// Per cell and box: class = argmax of the raw class logits; the confidence is
// ncnn's expression 1 / (1 + exp(-obj) * (1 + exp(-cls))) (NOT the product of
// two sigmoids: ncnn's parenthesisation, kept for compatibility); cells with
// confidence >= confidence_threshold give a box centred at
// ((j + sigmoid(x)) / w, (i + sigmoid(y)) / h), size exp(w) * bias_w / net_w
// (rounded as ncnn's x86 build computes it, see the source).
// All boxes of all inputs are sorted and suppressed together (IoU >
// nms_threshold, class-agnostic).
// Output: dims 2, w = 6, rows (class + 1, confidence, xmin, ymin, xmax, ymax)
// in [0,1] image coordinates. No detections: an EMPTY Mat and 0, as ncnn.
class Yolov3DetectionOutput : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_CLASS = 0,
        PARAM_NUM_BOX = 1,
        PARAM_CONFIDENCE_THRESHOLD = 2,
        PARAM_NMS_THRESHOLD = 3,
        PARAM_BIASES = 4,
        PARAM_MASK = 5,
        PARAM_ANCHORS_SCALE = 6,
    };

    Yolov3DetectionOutput();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int num_class;
    int num_box;
    float confidence_threshold;
    float nms_threshold;
    Mat biases;
    Mat mask;
    Mat anchors_scale;
};

} // namespace kite

#endif // KITE_LAYER_YOLOV3DETECTIONOUTPUT_H
