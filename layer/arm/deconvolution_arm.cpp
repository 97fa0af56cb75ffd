// Deconvolution for ARM: the driver of layer/x86/deconvolution_x86.cpp on NEON,
// its class renamed Deconvolution_arm (group 1, fp32, elempack 1): one packed
// SGEMM (sgemm_x86.h on NEON: 6 x 8 tiles) over all input pixels, then col2im
// and the activation on VF<4>.
#include "arm/portable_arm.h"

#define Deconvolution_x86 Deconvolution_arm
#include "../x86/deconvolution_x86.cpp"
#undef Deconvolution_x86
