#include "deconvolutiondepthwise1d.h"

namespace kite {

DeconvolutionDepthWise1D::DeconvolutionDepthWise1D()
{
    grouped = true;
    type_name = "DeconvolutionDepthWise1D";
}

DEFINE_LAYER_CREATOR(DeconvolutionDepthWise1D)

} // namespace kite
