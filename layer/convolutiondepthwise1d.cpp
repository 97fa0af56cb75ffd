#include "convolutiondepthwise1d.h"

namespace kite {

ConvolutionDepthWise1D::ConvolutionDepthWise1D()
{
    grouped = true;
    type_name = "ConvolutionDepthWise1D";
}

DEFINE_LAYER_CREATOR(ConvolutionDepthWise1D)

} // namespace kite
