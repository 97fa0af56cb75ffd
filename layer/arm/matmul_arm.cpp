// MatMul for ARM: the driver of layer/x86/matmul_x86.cpp on NEON, its class
// renamed MatMul_arm: each batch's product through the packed SGEMM
// (sgemm_x86.h on NEON: 6 x 8 tiles), batches side by side on one thread
// each when there are enough; the reference's shape checks and broadcasting.
#include "arm/portable_arm.h"

#define MatMul_x86 MatMul_arm
#include "../x86/matmul_x86.cpp"
#undef MatMul_x86
