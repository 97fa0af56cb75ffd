#ifndef KITE_LAYER_POOLING_H
#define KITE_LAYER_POOLING_H

#include "layer.h"
#include "pooling3d.h"

namespace kite {

// 2-D max/avg pooling over (w, h) of every channel, ncnn semantics: full pad
// mode extends the right/bottom pad so the ceil-mode output covers the input,
// avg pooling excludes the pads unless avgpool_count_include_pad, adaptive
// pooling bins [floor(i*n/out), ceil((i+1)*n/out)).
class Pooling : public Layer
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
        PARAM_OUT_H = 18,
    };

    Pooling();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    PoolingNdParams p;
};

} // namespace kite

#endif // KITE_LAYER_POOLING_H
