#ifndef KITE_LAYER_DECONVOLUTIONDEPTHWISE1D_H
#define KITE_LAYER_DECONVOLUTIONDEPTHWISE1D_H

#include "deconvolution1d.h"

namespace kite {

// Grouped 1-D transposed convolution over a dims-2 blob (w, h = channels); output (outw, num_output), ncnn's DeconvolutionDepthWise1D: param 7 splits channels and num_output into groups.
// Weights [num_output][channels/group][kw];
// the full output (in - 1) * stride + kernel_extent + output_pad is cut by the
// pads, or to output_w with SAME pads (-233/-234), as in ncnn.
// dynamic_weight is not supported.
// Same parameters, weights and computation as Deconvolution1D, with group read from
// param 7.
class DeconvolutionDepthWise1D : public Deconvolution1D
{
public:
    DeconvolutionDepthWise1D();
};

} // namespace kite

#endif // KITE_LAYER_DECONVOLUTIONDEPTHWISE1D_H
