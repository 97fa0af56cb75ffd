#ifndef KITE_LAYER_INTERP_H
#define KITE_LAYER_INTERP_H

#include "layer.h"

#include <vector>

namespace kite {

// Resizes the h/w plane of every channel (as ncnn's Interp).
// resize_type 1 nearest, 2 bilinear, 3 bicubic (A = -0.75, border taps
// clamped). The output size is (output_height, output_width) when both are
// set, else (int)(h * height_scale), (int)(w * width_scale); with
// dynamic_target_size it is the second input's h/w. Source coordinates use
// in/out when the size was given and 1/scale when it came from the scales:
//   nearest:  sx = min((int)(dx * s), w - 1)
//   linear:   fx = (dx + 0.5) * s - 0.5, or dx * (w - 1) / (outw - 1) with align_corner
// dims 3: every channel; dims 2: each row is resized along w only (h kept);
// dims 1: the w values become channels of an (outw, outh) constant plane.
class Interp : public Layer
{
public:
    enum ParamId
    {
        PARAM_RESIZE_TYPE = 0,
        PARAM_HEIGHT_SCALE = 1,
        PARAM_WIDTH_SCALE = 2,
        PARAM_OUTPUT_HEIGHT = 3,
        PARAM_OUTPUT_WIDTH = 4,
        PARAM_DYNAMIC_TARGET_SIZE = 5,
        PARAM_ALIGN_CORNER = 6,
    };
    enum ResizeType
    {
        RESIZE_NEAREST = 1,
        RESIZE_BILINEAR = 2,
        RESIZE_BICUBIC = 3,
    };

    Interp();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;
    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override;

public:
    int resize_type;
    float height_scale;
    float width_scale;
    int output_height;
    int output_width;
    int dynamic_target_size;
    int align_corner;

    // the target size and source steps of resize() for an input of w x h
    // (a 1-D input counts as 1 x 1) without a second input: the given output
    // size, else the scaled one (GPU drivers use it to plan their taps)
    void target_size(int w, int h, int& outw, int& outh, float& hs, float& ws) const;

protected:
    // outw/outh: target size; hs/ws: source step per output pixel; the
    // reference takes fp32 elempack 1, drivers override it for their layouts
    virtual int resize(const Mat& bottom_blob, Mat& top_blob, int outw, int outh, float hs, float ws, const Option& opt) const;
};

// per output index: first source tap (may be outside; clamped when read) and
// the tap weights, ntaps each (1 nearest, 2 linear, 4 cubic)
struct InterpTaps
{
    std::vector<int> ofs;
    std::vector<float> alpha;
    int ntaps;
};

// the taps of resize_type (Interp::RESIZE_*) from `in` to `out` samples, scale s = in/out
void interp_make_taps(int type, int in, int out, float s, bool align_corner, InterpTaps& t);

} // namespace kite

#endif // KITE_LAYER_INTERP_H
