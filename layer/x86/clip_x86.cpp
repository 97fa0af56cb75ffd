// Clip for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "clip.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(Clip, V::min(V::max(x, V::set1(min)), V::set1(max)));

} // namespace KITE_ISA_NS
} // namespace kite
