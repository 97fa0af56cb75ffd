#ifndef KITE_LAYER_DECONVOLUTIONDEPTHWISE3D_H
#define KITE_LAYER_DECONVOLUTIONDEPTHWISE3D_H

#include "deconvolution3d.h"

namespace kite {

// Grouped 3-D transposed convolution over a dims-4 blob (w, h, d, c); output (outw, outh, outd, num_output), ncnn's DeconvolutionDepthWise3D: param 7 splits channels and num_output into groups.
// Weights [num_output][channels/group][kd][kh][kw];
// the full output (in - 1) * stride + kernel_extent + output_pad is cut by the
// pads, or to output_w/h/d with SAME pads (-233/-234), as in ncnn.
// dynamic_weight is not supported.
// Same parameters, weights and computation as Deconvolution3D, with group read from
// param 7.
class DeconvolutionDepthWise3D : public Deconvolution3D
{
public:
    DeconvolutionDepthWise3D();
};

} // namespace kite

#endif // KITE_LAYER_DECONVOLUTIONDEPTHWISE3D_H
