#ifndef KITE_CPU_CONV_INT8_H
#define KITE_CPU_CONV_INT8_H

// The int8 kernel interface of the CPU convolution-family drivers
// (convolution_cpu.cpp, convolutiondepthwise_cpu.cpp, innerproduct_cpu.cpp).
// The kernels exist for one ISA family each, so this header takes the
// family's own (compiled once per ISA level inside kite::KITE_ISA_NS):
//   x86: x86/conv_int8_x86.h (pmaddwd on SSE2 / AVX2 / AVX-512BW; the VNNI
//        kernels are separate: x86/conv_int8_vnni_x86.h)
//   ARM: arm/conv_int8_arm.h (SDOT on arm82, SMLAL on neon) and
//        arm/conv_dw_int8_arm.h
// Each provides, in kite::KITE_ISA_NS:
//   struct ConvInt8PackedWeights                      packed weights (M == 0: none)
//   conv_int8_pack_weights(weight, M, K, out)         weight [M][K] int8
//   conv_int8_gemm(job, packed, num_threads)          group 1, 2-D: the job's outputs
//   conv_int8_depthwise(job, num_threads)             group == channels
//   int8_gemv(x, w, M, K, sums, num_threads)          sums[m] = sum_k x[k] w[m][k]
//   quantize_unpack_int8<P>(in, out, scale, alloc, n) fused quantize + unpack of an
//                                                     elempack P fp32 blob; -1 where the
//                                                     family has none (the driver unpacks)
// All of them bit-identical to the reference (common/conv_kernel.h).

#if defined(__ARM_NEON)
#include "arm/conv_int8_arm.h"
#elif defined(__SSE2__)
#include "x86/conv_int8_x86.h"
#else
#error "cpu/conv_int8_cpu.h: no int8 kernels for this target (layer/cpu is built for x86 and ARM)"
#endif

#endif // KITE_CPU_CONV_INT8_H
