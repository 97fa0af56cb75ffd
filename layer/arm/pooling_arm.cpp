// Pooling for ARM: the VF<N> driver of layer/x86/pooling_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Pooling_arm.
#include "arm/portable_arm.h"

#define Pooling_x86 Pooling_arm
#include "../x86/pooling_x86.cpp"
#undef Pooling_x86
