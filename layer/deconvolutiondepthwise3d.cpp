#include "deconvolutiondepthwise3d.h"

namespace kite {

DeconvolutionDepthWise3D::DeconvolutionDepthWise3D()
{
    grouped = true;
    type_name = "DeconvolutionDepthWise3D";
}

DEFINE_LAYER_CREATOR(DeconvolutionDepthWise3D)

} // namespace kite
