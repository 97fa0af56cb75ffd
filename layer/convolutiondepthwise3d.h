#ifndef KITE_LAYER_CONVOLUTIONDEPTHWISE3D_H
#define KITE_LAYER_CONVOLUTIONDEPTHWISE3D_H

#include "convolution3d.h"

namespace kite {

// Grouped 3-D convolution over a dims-4 blob (w, h, d, c); output (outw, outh, outd, num_output), ncnn's ConvolutionDepthWise3D: param 7 splits channels and num_output into groups.
// Weights [num_output][channels/group][kd][kh][kw].
// dynamic_weight is not supported.
// Same parameters, weights and computation as Convolution3D, with group read from
// param 7.
class ConvolutionDepthWise3D : public Convolution3D
{
public:
    ConvolutionDepthWise3D();
};

} // namespace kite

#endif // KITE_LAYER_CONVOLUTIONDEPTHWISE3D_H
