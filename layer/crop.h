#ifndef KITE_LAYER_CROP_H
#define KITE_LAYER_CROP_H

#include "layer.h"

namespace kite {

// Cuts a box out of its input, three ways (as ncnn):
// - offsets + sizes: the box starts at (woffset, hoffset, doffset, coffset);
//   its size on each axis the input has is min(out*, size - offset - offset2),
//   or size - offset - offset2 when out* is -233.
// - numpy style (starts and ends arrays, optional axes, axes outermost first,
//   negative values count from the end, ends clamp to the axis, -233 = end).
// - two inputs and no sizes: the box takes the second blob's w/h (and d, and
//   c when the second blob has the input's dims) at the given offsets.
// Boxes that leave the input are an error.
class Crop : public Layer
{
public:
    enum ParamId
    {
        PARAM_WOFFSET = 0,
        PARAM_HOFFSET = 1,
        PARAM_COFFSET = 2,
        PARAM_OUTW = 3,
        PARAM_OUTH = 4,
        PARAM_OUTC = 5,
        PARAM_WOFFSET2 = 6,
        PARAM_HOFFSET2 = 7,
        PARAM_COFFSET2 = 8,
        PARAM_STARTS = 9,
        PARAM_ENDS = 10,
        PARAM_AXES = 11,
        PARAM_DOFFSET = 13,
        PARAM_OUTD = 14,
        PARAM_DOFFSET2 = 15,
    };

    Crop();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int woffset, hoffset, doffset, coffset;
    int outw, outh, outd, outc;
    int woffset2, hoffset2, doffset2, coffset2;
    Mat starts, ends, axes;

protected:
    // box start and extent per logical axis of bottom (outermost first)
    int resolve_box(const Mat& bottom_blob, const Mat* reference_blob, int* start, int* extent) const;
    int crop_box(const Mat& bottom_blob, const int* start, const int* extent, Mat& top_blob, const Option& opt) const;
};

} // namespace kite

#endif // KITE_LAYER_CROP_H
