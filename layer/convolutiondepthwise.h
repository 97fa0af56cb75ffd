#ifndef KITE_LAYER_CONVOLUTIONDEPTHWISE_H
#define KITE_LAYER_CONVOLUTIONDEPTHWISE_H

#include "convolution.h"

namespace kite {

// Grouped 2-D convolution, ncnn's ConvolutionDepthWise: group == channels ==
// num_output is depthwise, otherwise channels and num_output are split into
// `group` groups. Weights [group][num_output/group][channels/group][kh][kw].
// Same parameters, weights and computation as Convolution, with group read
// from param 7; int8: int8_scale_term 1/101 loads one weight scale per group,
// 2/102 one for all; > 100 also loads a top scale and produces int8.
class ConvolutionDepthWise : public Convolution
{
public:
    ConvolutionDepthWise();
};

} // namespace kite

#endif // KITE_LAYER_CONVOLUTIONDEPTHWISE_H
