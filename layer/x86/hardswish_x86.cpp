// HardSwish for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "hardswish.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(HardSwish, V::select(V::lt(x, V::set1(lower)), V::zero(), V::select(V::gt(x, V::set1(upper)), x, V::mul(x, V::fmadd(x, V::set1(alpha), V::set1(beta))))));

} // namespace KITE_ISA_NS
} // namespace kite
