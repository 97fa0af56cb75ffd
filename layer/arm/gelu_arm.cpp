// GELU for ARM: the VF<N> driver of layer/x86/gelu_x86.cpp on NEON (any elempack; fp16 storage on aarch64).
#include "arm/portable_arm.h"

#include "../x86/gelu_x86.cpp"
