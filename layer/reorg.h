#ifndef KITE_LAYER_REORG_H
#define KITE_LAYER_REORG_H

#include "layer.h"

namespace kite {

// Space to depth on a dims 3 blob with stride s: (w, h, c) -> (w/s, h/s, c*s*s)
// (trailing rows/columns that do not fill a block are dropped, as ncnn).
// Output channel o at (i, j) takes input (i*s + sy, j*s + sx) of channel q with
//   mode 0 (darknet reorg, ONNX SpaceToDepth):   o = q*s*s + sy*s + sx
//   mode 1 (TensorFlow SpaceToDepth order):      o = (sy*s + sx)*c + q
class Reorg : public Layer
{
public:
    enum ParamId
    {
        PARAM_STRIDE = 0,
        PARAM_MODE = 1,
    };

    Reorg();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int stride;
    int mode;
};

} // namespace kite

#endif // KITE_LAYER_REORG_H
