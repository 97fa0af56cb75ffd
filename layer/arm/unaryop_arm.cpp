// UnaryOp for ARM: the VF<N> driver of layer/x86/unaryop_x86.cpp on NEON (any
// elempack; fp16 storage on aarch64), its class renamed UnaryOp_arm.
#include "arm/portable_arm.h"

#define UnaryOp_x86 UnaryOp_arm
#include "../x86/unaryop_x86.cpp"
#undef UnaryOp_x86
