// ELU for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "elu.h"
#include "simd/simd_math.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(ELU, V::select(V::lt(x, V::zero()), V::mul(V::set1(alpha), V::sub(simd::exp_ps<V>(x), V::set1(1.f))), x));

} // namespace KITE_ISA_NS
} // namespace kite
