// Mish for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "mish.h"
#include "simd/simd_math.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(Mish, V::mul(x, simd::tanh_ps<V>(simd::log_ps<V>(V::add(simd::exp_ps<V>(x), V::set1(1.f))))));

} // namespace KITE_ISA_NS
} // namespace kite
