// Dropout (inference: y = x * scale) for x86, compiled once per ISA level:
// any elempack, fp16 storage with F16C.
#include "dropout.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(Dropout, V::mul(x, V::set1(scale)));

} // namespace KITE_ISA_NS
} // namespace kite
