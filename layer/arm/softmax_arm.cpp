// Softmax for ARM: the VF<N> driver of layer/x86/softmax_x86.cpp on NEON (any
// axis, elempack 1/4 and, with fp16 storage on arm82, 8 as two VF<4> per
// packed element; fp32 arithmetic), its class renamed Softmax_arm.
#include "arm/portable_arm.h"

#define Softmax_x86 Softmax_arm
#include "../x86/softmax_x86.cpp"
#undef Softmax_x86
