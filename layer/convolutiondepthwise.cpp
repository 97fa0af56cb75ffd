#include "convolutiondepthwise.h"

namespace kite {

ConvolutionDepthWise::ConvolutionDepthWise()
{
    grouped = true;
    type_name = "ConvolutionDepthWise";
}

DEFINE_LAYER_CREATOR(ConvolutionDepthWise)

} // namespace kite
