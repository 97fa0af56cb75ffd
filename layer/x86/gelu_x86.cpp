// GELU for x86, compiled once per ISA level: any elempack, fp16 storage with F16C.
#include "gelu.h"
#include "simd/simd_math.h"
#include "unary_x86.h"

namespace kite {
namespace KITE_ISA_NS {

KITE_X86_UNARY_DRIVER(GELU, fast_gelu ? simd::gelu_tanh_ps<V>(x) : simd::gelu_erf_ps<V>(x));

} // namespace KITE_ISA_NS
} // namespace kite
