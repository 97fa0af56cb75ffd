#ifndef KITE_LAYER_CONVOLUTIONDEPTHWISE1D_H
#define KITE_LAYER_CONVOLUTIONDEPTHWISE1D_H

#include "convolution1d.h"

namespace kite {

// Grouped 1-D convolution over a dims-2 blob (w, h = channels); output (outw, num_output), ncnn's ConvolutionDepthWise1D: param 7 splits channels and num_output into groups.
// Weights [num_output][channels/group][kw].
// dynamic_weight is not supported.
// Same parameters, weights and computation as Convolution1D, with group read from
// param 7.
class ConvolutionDepthWise1D : public Convolution1D
{
public:
    ConvolutionDepthWise1D();
};

} // namespace kite

#endif // KITE_LAYER_CONVOLUTIONDEPTHWISE1D_H
