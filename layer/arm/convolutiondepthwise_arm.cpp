// ConvolutionDepthWise for ARM: the VF<N> driver of
// layer/x86/convolutiondepthwise_x86.cpp on NEON (depth-wise on elempack 1/4,
// one vector FMA per tap for 4 channels, 4 outputs per weight load), its
// class renamed ConvolutionDepthWise_arm. int8 runs the reference's kernels
// (conv_int8_arm.h).
#include "arm/portable_arm.h"

#include "arm/conv_int8_arm.h"

#define ConvolutionDepthWise_x86 ConvolutionDepthWise_arm
#include "../x86/convolutiondepthwise_x86.cpp"
#undef ConvolutionDepthWise_x86
