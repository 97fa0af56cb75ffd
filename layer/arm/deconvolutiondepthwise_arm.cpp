// DeconvolutionDepthWise for ARM: the VF<N> driver of
// layer/x86/deconvolutiondepthwise_x86.cpp on NEON, its class renamed
// DeconvolutionDepthWise_arm: depth-wise layers (fp32) on elempack 1 and 4,
// each output pixel gathering its taps, one vector FMA per tap for 4
// channels; grouped layers and other inputs run the reference.
#include "arm/portable_arm.h"

#define DeconvolutionDepthWise_x86 DeconvolutionDepthWise_arm
#include "../x86/deconvolutiondepthwise_x86.cpp"
#undef DeconvolutionDepthWise_x86
