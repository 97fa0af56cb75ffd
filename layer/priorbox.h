#ifndef KITE_LAYER_PRIORBOX_H
#define KITE_LAYER_PRIORBOX_H

#include "layer.h"

namespace kite {

// SSD prior (anchor) boxes, as ncnn's PriorBox.
//
// Inputs: the feature map (w, h used) and, for Caffe style, the image blob
// (its w, h are the image size when image_width/height are -233).
//
// Caffe style (default): output is dims 2, w = 4 * fw * fh * num_prior, h = 2.
// Row 0 holds boxes (xmin, ymin, xmax, ymax) normalised by the image size,
// ordered by cell (row-major), then per min_size: the min box, the
// sqrt(min*max) box if max_sizes are given, then per aspect ratio the box and
// (flip) its transpose; num_prior = nmin * nar * (flip ? 2 : 1) + nmin + nmax.
// Row 1 repeats the 4 variances. clip clamps row 0 to [0, 1].
// step_mmdetection uses ceil(image / feature) as the default step;
// center_mmdetection puts centres at offset * (step - 1) + i * step.
//
// MXNet style (_contrib_MultiBoxPrior): chosen when there is one input,
// image_width == image_height == -233 and no max_sizes. Output is dims 1 with
// 4 * fw * fh * (nsizes - 1 + nratios) values in [0,1] feature coordinates:
// per cell all sizes with ratio 1, then ratios[1..] with size[0].
class PriorBox : public Layer
{
public:
    enum ParamId
    {
        PARAM_MIN_SIZES = 0,
        PARAM_MAX_SIZES = 1,
        PARAM_ASPECT_RATIOS = 2,
        PARAM_VARIANCE0 = 3,
        PARAM_VARIANCE1 = 4,
        PARAM_VARIANCE2 = 5,
        PARAM_VARIANCE3 = 6,
        PARAM_FLIP = 7,
        PARAM_CLIP = 8,
        PARAM_IMAGE_WIDTH = 9,
        PARAM_IMAGE_HEIGHT = 10,
        PARAM_STEP_WIDTH = 11,
        PARAM_STEP_HEIGHT = 12,
        PARAM_OFFSET = 13,
        PARAM_STEP_MMDETECTION = 14,
        PARAM_CENTER_MMDETECTION = 15,
    };

    PriorBox();
    int load_param(const ParamDict& pd) override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    Mat min_sizes;
    Mat max_sizes;
    Mat aspect_ratios;
    float variances[4];
    int flip;
    int clip;
    int image_width;
    int image_height;
    float step_width;
    float step_height;
    float offset;
    int step_mmdetection;
    int center_mmdetection;

private:
    int forward_mxnet(int w, int h, Mat& top_blob, const Option& opt) const;
};

} // namespace kite

#endif // KITE_LAYER_PRIORBOX_H
