// ShuffleChannel for ARM: the VF<N> driver of layer/x86/shufflechannel_x86.cpp on NEON (packed
// blobs of elempack 1/4; fp16 storage on aarch64), its class renamed ShuffleChannel_arm.
#include "arm/portable_arm.h"

#define ShuffleChannel_x86 ShuffleChannel_arm
#include "../x86/shufflechannel_x86.cpp"
#undef ShuffleChannel_x86
