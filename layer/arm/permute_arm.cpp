// Permute for ARM: the VF<N> driver of layer/x86/permute_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Permute_arm.
#include "arm/portable_arm.h"

#define Permute_x86 Permute_arm
#include "../x86/permute_x86.cpp"
#undef Permute_x86
