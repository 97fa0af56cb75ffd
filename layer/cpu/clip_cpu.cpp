// Clip, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage (F16C, aarch64).
#include "clip.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_CPU_UNARY_DRIVER(Clip, V::min(V::max(x, V::set1(min)), V::set1(max)));

} // namespace KITE_ISA_NS
} // namespace kite
