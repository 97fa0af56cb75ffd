// AbsVal, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "absval.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(AbsVal, V::abs(x));

} // namespace KITE_ISA_NS
} // namespace kite
