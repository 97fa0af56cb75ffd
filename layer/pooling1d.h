#ifndef KITE_LAYER_POOLING1D_H
#define KITE_LAYER_POOLING1D_H

#include "layer.h"
#include "pooling3d.h"

namespace kite {

// 1-D max/avg pooling along w of a (w, h = channels) blob, ncnn semantics
// (see Pooling).
class Pooling1D : public Layer
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
        PARAM_PAD_RIGHT = 14,
    };

    Pooling1D();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    PoolingNdParams p;
};

} // namespace kite

#endif // KITE_LAYER_POOLING1D_H
