// InnerProduct for ARM: the VF<N> driver of layer/x86/innerproduct_x86.cpp on NEON, its class
// renamed InnerProduct_arm: fp32 rows through the packed SGEMM (sgemm_x86.h on NEON: 6 x 8 tiles), matrix-vector products 4 outputs at a time; int8 sums from
// conv_int8_arm.h's int8_gemv.
#include "arm/portable_arm.h"

#include "arm/conv_int8_arm.h"

#define InnerProduct_x86 InnerProduct_arm
#include "../x86/innerproduct_x86.cpp"
#undef InnerProduct_x86
