// ReLU for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "relu.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(ReLU, slope == 0.f ? V::max(x, V::zero()) : V::select(V::lt(x, V::zero()), V::mul(x, V::set1(slope)), x));

} // namespace KITE_ISA_NS
} // namespace kite
