// ELU, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "elu.h"
#include "simd/simd_math.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(ELU, V::select(V::lt(x, V::zero()), V::mul(V::set1(alpha), V::sub(simd::exp_ps<V>(x), V::set1(1.f))), x));

} // namespace KITE_ISA_NS
} // namespace kite
