// SELU, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "selu.h"
#include "simd/simd_math.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(SELU, V::select(V::lt(x, V::zero()), V::mul(V::sub(simd::exp_ps<V>(x), V::set1(1.f)), V::set1(alpha_lambda)), V::mul(x, V::set1(lambda))));

} // namespace KITE_ISA_NS
} // namespace kite
