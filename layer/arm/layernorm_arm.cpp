// LayerNorm for ARM: the VF<N> driver of layer/x86/layernorm_x86.cpp on NEON, its class
// renamed LayerNorm_arm: rows/planes/channels on elempack 1/4 (fp16 storage on aarch64), in place.
#include "arm/portable_arm.h"

#define LayerNorm_x86 LayerNorm_arm
#include "../x86/layernorm_x86.cpp"
#undef LayerNorm_x86
