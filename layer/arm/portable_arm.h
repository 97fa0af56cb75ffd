#ifndef KITE_LAYER_ARM_PORTABLE_ARM_H
#define KITE_LAYER_ARM_PORTABLE_ARM_H

// Included first by a layer/arm/<op>_arm.cpp that compiles a layer/x86 driver
// written only on the layer/simd VF<N> wrappers (element-wise, binary,
// pooling, data movement): NEON's VF<4> (simd_neon.h) takes the place of
// SSE's, and the driver class is named <Op>_arm for the ARM registry rows
// (KITE_UNARY_FAMILY for the unary_x86.h macro; a `#define <Op>_x86 <Op>_arm`
// around the include for the drivers that name their class). One
// source serves both families (design rule 2); the ARM levels (neon, arm82)
// compile it with their flags like any other layer/arm source.

#include "simd/simd_neon.h"

#define KITE_UNARY_FAMILY arm

#endif // KITE_LAYER_ARM_PORTABLE_ARM_H
