#ifndef KITE_LAYER_YOLODETECTIONOUTPUT_H
#define KITE_LAYER_YOLODETECTIONOUTPUT_H

#include "layer.h"

namespace kite {

// YOLOv2 region output, as ncnn's YoloDetectionOutput (an in-place layer:
// n inputs, n outputs).
//
// Inputs: feature maps (w, h, c) with c = num_box * (4 + 1 + num_class);
// per box: x, y, w, h, objectness, class logits. Box k uses the anchor
// biases[2k], biases[2k+1] in grid cells.
//
// The class logits of every input are replaced IN PLACE by their softmax over
// the classes (as ncnn does). Per cell: class = argmax probability,
// confidence = sigmoid(obj) * p(class); cells with confidence >=
// confidence_threshold give a box centred at ((j + sigmoid(x)) / w,
// (i + sigmoid(y)) / h), size (exp(w) * bias_w / w, exp(h) * bias_h / h).
// All boxes are sorted and suppressed together (IoU > nms_threshold).
// Output 0: dims 2, w = 6, rows (class + 1, confidence, xmin, ymin, xmax,
// ymax). With no detections output 0 is, exactly as in ncnn, the first
// input with its class channels softmaxed (ncnn never replaces the blob).
class YoloDetectionOutput : public Layer
{
public:
    enum ParamId
    {
        PARAM_NUM_CLASS = 0,
        PARAM_NUM_BOX = 1,
        PARAM_CONFIDENCE_THRESHOLD = 2,
        PARAM_NMS_THRESHOLD = 3,
        PARAM_BIASES = 4,
    };

    YoloDetectionOutput();
    int load_param(const ParamDict& pd) override;
    int forward_inplace(std::vector<Mat>& bottom_top_blobs, const Option& opt) const override;

public:
    int num_class;
    int num_box;
    float confidence_threshold;
    float nms_threshold;
    Mat biases;
};

} // namespace kite

#endif // KITE_LAYER_YOLODETECTIONOUTPUT_H
