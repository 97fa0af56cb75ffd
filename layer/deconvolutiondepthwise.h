#ifndef KITE_LAYER_DECONVOLUTIONDEPTHWISE_H
#define KITE_LAYER_DECONVOLUTIONDEPTHWISE_H

#include "deconvolution.h"

namespace kite {

// Grouped 2-D transposed convolution, ncnn's DeconvolutionDepthWise (param 7
// group). Weights [group][num_output/group][channels/group][kh][kw]. The full
// output (w - 1) * stride + kernel_extent + output_pad is cut by the pads, or
// to output_w/output_h with SAME pads (-233 UPPER, -234 LOWER), as in ncnn.
// Same parameters, weights and computation as Deconvolution, with group read from
// param 7.
class DeconvolutionDepthWise : public Deconvolution
{
public:
    DeconvolutionDepthWise();
};

} // namespace kite

#endif // KITE_LAYER_DECONVOLUTIONDEPTHWISE_H
