// Gemm for ARM: the VF<N> driver of layer/x86/gemm_x86.cpp on NEON, its class
// renamed Gemm_arm: through the packed SGEMM (sgemm_x86.h on NEON: 6 x 8 tiles).
#include "arm/portable_arm.h"

#define Gemm_x86 Gemm_arm
#include "../x86/gemm_x86.cpp"
#undef Gemm_x86
