// Eltwise for ARM: the VF<N> driver of layer/x86/eltwise_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Eltwise_arm.
#include "arm/portable_arm.h"

#define Eltwise_x86 Eltwise_arm
#include "../x86/eltwise_x86.cpp"
#undef Eltwise_x86
