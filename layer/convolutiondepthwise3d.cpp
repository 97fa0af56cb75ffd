#include "convolutiondepthwise3d.h"

namespace kite {

ConvolutionDepthWise3D::ConvolutionDepthWise3D()
{
    grouped = true;
    type_name = "ConvolutionDepthWise3D";
}

DEFINE_LAYER_CREATOR(ConvolutionDepthWise3D)

} // namespace kite
