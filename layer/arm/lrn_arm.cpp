// LRN for ARM: the VF<N> driver of layer/x86/lrn_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed LRN_arm.
#include "arm/portable_arm.h"

#define LRN_x86 LRN_arm
#include "../x86/lrn_x86.cpp"
#undef LRN_x86
