// Interp for ARM: the VF<N> driver of layer/x86/interp_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Interp_arm.
#include "arm/portable_arm.h"

#define Interp_x86 Interp_arm
#include "../x86/interp_x86.cpp"
#undef Interp_x86
