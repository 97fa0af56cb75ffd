// Convolution for ARM: the VF<N> driver of layer/x86/convolution_x86.cpp on
// NEON, its class renamed Convolution_arm: packed GEMM with implicit im2col
// (conv_gemm_x86.h: 6 pixels x 8 output channels of fp32 accumulators per
// micro tile) on inputs of elempack 1/4, outputs packed 4 where num_output
// allows, Winograd F(6,3)/F(4,3) for 3x3 stride 1 (conv_winograd_x86.h).
// int8 runs the reference's kernels (conv_int8_arm.h).
#include "arm/portable_arm.h"

#include "arm/conv_int8_arm.h"

#define Convolution_x86 Convolution_arm
#include "../x86/convolution_x86.cpp"
#undef Convolution_x86
