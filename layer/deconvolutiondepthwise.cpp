#include "deconvolutiondepthwise.h"

namespace kite {

DeconvolutionDepthWise::DeconvolutionDepthWise()
{
    grouped = true;
    type_name = "DeconvolutionDepthWise";
}

DEFINE_LAYER_CREATOR(DeconvolutionDepthWise)

} // namespace kite
