// SELU for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "selu.h"
#include "simd/simd_math.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(SELU, V::select(V::lt(x, V::zero()), V::mul(V::sub(simd::exp_ps<V>(x), V::set1(1.f)), V::set1(alpha_lambda)), V::mul(x, V::set1(lambda))));

} // namespace KITE_ISA_NS
} // namespace kite
