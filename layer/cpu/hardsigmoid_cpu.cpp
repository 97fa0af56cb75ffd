// HardSigmoid, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "hardsigmoid.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(HardSigmoid, V::select(V::lt(x, V::set1(lower)), V::zero(), V::select(V::gt(x, V::set1(upper)), V::set1(1.f), V::fmadd(x, V::set1(alpha), V::set1(beta)))));

} // namespace KITE_ISA_NS
} // namespace kite
