// Concat for ARM: the VF<N> driver of layer/x86/concat_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Concat_arm.
#include "arm/portable_arm.h"

#define Concat_x86 Concat_arm
#include "../x86/concat_x86.cpp"
#undef Concat_x86
