// Mish, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "mish.h"
#include "simd/simd_math.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(Mish, V::mul(x, simd::tanh_ps<V>(simd::log_ps<V>(V::add(simd::exp_ps<V>(x), V::set1(1.f))))));

} // namespace KITE_ISA_NS
} // namespace kite
