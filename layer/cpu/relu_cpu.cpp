// ReLU, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage
// (F16C, aarch64); on arm82 fp16 data is mapped in fp16 arithmetic (8 lanes).
#include "relu.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER_FP16(ReLU, slope == 0.f ? V::max(x, V::zero()) : V::select(V::lt(x, V::zero()), V::mul(x, V::set1(slope)), x));

} // namespace KITE_ISA_NS
} // namespace kite
