// Crop for ARM: the VF<N> driver of layer/x86/crop_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed Crop_arm.
#include "arm/portable_arm.h"

#define Crop_x86 Crop_arm
#include "../x86/crop_x86.cpp"
#undef Crop_x86
