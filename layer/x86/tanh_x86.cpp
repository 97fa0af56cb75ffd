// TanH for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "tanh.h"
#include "simd/simd_math.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(TanH, simd::tanh_ps<V>(x));

} // namespace KITE_ISA_NS
} // namespace kite
