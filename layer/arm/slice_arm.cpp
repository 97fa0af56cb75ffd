// Slice for ARM: the VF<N> driver of layer/x86/slice_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Slice_arm.
#include "arm/portable_arm.h"

#define Slice_x86 Slice_arm
#include "../x86/slice_x86.cpp"
#undef Slice_x86
