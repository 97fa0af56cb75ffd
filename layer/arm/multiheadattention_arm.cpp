// MultiHeadAttention for ARM: the VF<N> driver of layer/x86/multiheadattention_x86.cpp on NEON, its class
// renamed MultiHeadAttention_arm: projections and both attention products through the packed SGEMM (sgemm_x86.h on NEON), vectorised softmax rows.
#include "arm/portable_arm.h"

#define MultiHeadAttention_x86 MultiHeadAttention_arm
#include "../x86/multiheadattention_x86.cpp"
#undef MultiHeadAttention_x86
