#ifndef KITE_LAYER_PIXELSHUFFLE_H
#define KITE_LAYER_PIXELSHUFFLE_H

#include "layer.h"

namespace kite {

// Depth to space on a dims 3 blob with factor r: (w, h, c) -> (w*r, h*r, c/(r*r)).
// Output (p, y, x) takes input (y/r, x/r) of channel
//   mode 0 (pytorch PixelShuffle, ONNX DepthToSpace CRD): p*r*r + (y%r)*r + x%r
//   mode 1 (ONNX DepthToSpace DCR, TensorFlow):             ((y%r)*r + x%r)*outc + p
class PixelShuffle : public Layer
{
public:
    enum ParamId
    {
        PARAM_UPSCALE_FACTOR = 0,
        PARAM_MODE = 1,
    };

    PixelShuffle();
    int load_param(const ParamDict& pd) override;
    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override;

public:
    int upscale_factor;
    int mode;
};

} // namespace kite

#endif // KITE_LAYER_PIXELSHUFFLE_H
