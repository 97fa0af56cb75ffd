// Swish, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "swish.h"
#include "simd/simd_math.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(Swish, V::div(x, V::add(V::set1(1.f), simd::exp_ps<V>(V::neg(x)))));

} // namespace KITE_ISA_NS
} // namespace kite
