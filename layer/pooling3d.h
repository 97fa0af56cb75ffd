#ifndef KITE_LAYER_POOLING3D_H
#define KITE_LAYER_POOLING3D_H

#include "layer.h"

namespace kite {

// Pooling geometry shared by Pooling1D, Pooling and Pooling3D: all three run
// the same 3-D (w, h, d) kernel, the lower-rank ones with unit extents.
struct PoolingNdParams
{
    int pooling_type;          // 0 max, 1 avg
    int kernel[3];             // w, h, d
    int stride[3];
    int pad_lo[3];             // left, top, front
    int pad_hi[3];             // right, bottom, behind
    int global_pooling;
    int pad_mode;              // 0 full, 1 valid, 2 SAME_UPPER, 3 SAME_LOWER
    int avgpool_count_include_pad;
    int adaptive_pooling;
    int out_size[3];           // adaptive output w, h, d (-233: keep the input size)
};

// Pool a blob viewed as `channels` planes of w*h*d floats (channel stride
// cstep). Creates top_blob with the given output dims (1..4) and layout:
// the caller passes how to shape the result.
//   out_dims_kind 1: top is (outw, channels)          [Pooling1D]
//   out_dims_kind 2: top is (outw, outh, channels)    [Pooling]
//   out_dims_kind 3: top is (outw, outh, outd, chans) [Pooling3D]
// Global pooling always gives a 1-D blob of `channels`.
int pooling_nd_forward(const PoolingNdParams& p, const char* type, const char* name, const Mat& bottom_blob,
                       int w, int h, int d, int channels, size_t cstep, int out_dims_kind, Mat& top_blob,
                       const Option& opt);

// ncnn's padding rule for one axis (GPU drivers use it to size their grids)
struct PoolingAxisPlan
{
    int n;      // input extent
    int lo;     // padding before the data
    int padded; // extent after padding
    int out;    // output extent
    int ex_lo;  // avg without pad counting: window positions counted are [ex_lo, ex_hi)
    int ex_hi;
};
PoolingAxisPlan pooling_plan_axis(const PoolingNdParams& p, int axis, int n);

// validation of the common parameters; logs and returns -1 on error
int pooling_nd_check(const PoolingNdParams& p, const char* type, const char* name, int spatial_dims);

class Pooling3D : public Layer
{
public:
    enum ParamId
    {
        PARAM_POOLING_TYPE = 0,
        PARAM_KERNEL_W = 1,
        PARAM_STRIDE_W = 2,
        PARAM_PAD_LEFT = 3,
        PARAM_GLOBAL_POOLING = 4,
        PARAM_PAD_MODE = 5,
        PARAM_AVGPOOL_COUNT_INCLUDE_PAD = 6,
        PARAM_ADAPTIVE_POOLING = 7,
        PARAM_OUT_W = 8,
        PARAM_KERNEL_H = 11,
        PARAM_STRIDE_H = 12,
        PARAM_PAD_TOP = 13,
        PARAM_PAD_RIGHT = 14,
        PARAM_PAD_BOTTOM = 15,
        PARAM_PAD_BEHIND = 16,
        PARAM_OUT_H = 18,
        PARAM_KERNEL_D = 21,
        PARAM_STRIDE_D = 22,
        PARAM_PAD_FRONT = 23,
        PARAM_OUT_D = 28,
    };

    Pooling3D();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    PoolingNdParams p;
};

} // namespace kite

#endif // KITE_LAYER_POOLING3D_H
