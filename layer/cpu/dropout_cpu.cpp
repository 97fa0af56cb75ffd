// Dropout (inference: y = x * scale), compiled once per CPU ISA level (x86 and ARM):
// any elempack, fp16 storage (F16C, aarch64).
#include "dropout.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(Dropout, V::mul(x, V::set1(scale)));

} // namespace KITE_ISA_NS
} // namespace kite
