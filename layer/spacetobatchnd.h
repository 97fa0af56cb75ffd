#ifndef KITE_LAYER_SPACETOBATCHND_H
#define KITE_LAYER_SPACETOBATCHND_H

#include "layer.h"

namespace kite {

// TensorFlow's SpaceToBatchND (kite extension, no ncnn counterpart) on a
// dims 3 blob (w, h, c) = an NCHW tensor with batch 1.
// block_shape (array param 0) = [bh, bw]; paddings (array param 1) =
// [top, bottom, left, right], zeros added before blocking; (h + top + bottom)
// and (w + left + right) must divide by bh and bw.
// TensorFlow's output batch of bh*bw is folded into the channels, batch
// outermost: output channel (sy*bw + sx)*c + q, at (i, j), holds padded
// input channel q at (i*bh + sy, j*bw + sx). Output (wp/bw, hp/bh, c*bh*bw).
// BatchToSpaceND is the exact inverse.
class SpaceToBatchND : public Layer
{
public:
    enum ParamId
    {
        PARAM_BLOCK_SHAPE = 0,
        PARAM_PADDINGS = 1,
    };

    SpaceToBatchND();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int block_h, block_w;
    int pad_top, pad_bottom, pad_left, pad_right;
};

} // namespace kite

#endif // KITE_LAYER_SPACETOBATCHND_H
