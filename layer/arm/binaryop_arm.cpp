// BinaryOp for ARM: the VF<N> driver of layer/x86/binaryop_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed BinaryOp_arm.
#include "arm/portable_arm.h"

#define BinaryOp_x86 BinaryOp_arm
#include "../x86/binaryop_x86.cpp"
#undef BinaryOp_x86
