#ifndef KITE_LAYER_BATCHTOSPACEND_H
#define KITE_LAYER_BATCHTOSPACEND_H

#include "layer.h"

namespace kite {

// TensorFlow's BatchToSpaceND (kite extension, no ncnn counterpart) on a
// dims 3 blob whose channels hold TensorFlow's batch folded in, batch
// outermost: input (w, h, bh*bw*c), channel (sy*bw + sx)*c + q being batch
// sy*bw + sx, channel q. block_shape (array param 0) = [bh, bw]; crops
// (array param 1) = [top, bottom, left, right].
// Output channel q at (y, x) = input channel (sy*bw + sx)*c + q at (i, j)
// where i*bh + sy = y + top and j*bw + sx = x + left; output size
// (w*bw - left - right, h*bh - top - bottom, c). The inverse of SpaceToBatchND.
class BatchToSpaceND : public Layer
{
public:
    enum ParamId
    {
        PARAM_BLOCK_SHAPE = 0,
        PARAM_CROPS = 1,
    };

    BatchToSpaceND();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int block_h, block_w;
    int crop_top, crop_bottom, crop_left, crop_right;
};

} // namespace kite

#endif // KITE_LAYER_BATCHTOSPACEND_H
