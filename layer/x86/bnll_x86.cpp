// BNLL for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "bnll.h"
#include "simd/simd_math.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(BNLL, V::add(V::max(x, V::zero()), simd::log_ps<V>(V::add(V::set1(1.f), simd::exp_ps<V>(V::neg(V::abs(x)))))));

} // namespace KITE_ISA_NS
} // namespace kite
