#ifndef KITE_LAYER_SIMD_H
#define KITE_LAYER_SIMD_H

// The one vector layer of the CPU kernels: include this, not the family
// headers. VF<N> (N fp32 lanes: 1 scalar; 4 SSE2 / NEON; 8 AVX; 16 AVX-512)
// behind one set of static functions (listed in simd_x86.h), fp16 storage
// loads/stores, and per family:
//   x86: VI, the int32 lanes of the pmaddwd int8 kernels (simd_x86.h)
//   ARM: HF8, eight fp16 lanes with fp16 arithmetic on arm82 (simd_neon.h)
// KITE_SIMD_MAX_N is the widest VF, KITE_SIMD_F16C says whether fp16 storage
// converts in one instruction, KITE_SIMD_HF8 whether HF8 exists.
// simd_math.h adds exp/log/tanh/sigmoid/gelu templates on any VF<N>.
// Everything lives in kite::KITE_ISA_NS::simd, compiled once per ISA level.

#if defined(__ARM_NEON)
#include "simd_neon.h"
#else
#include "simd_x86.h"
#endif

namespace kite {
namespace KITE_ISA_NS {
namespace simd {

// Here, after the family header, so that KITE_SIMD_MAX_N is final (NEON's
// VF<4> comes after simd_x86.h's definitions):
// f(VF<N>(), i) over lanes [0, n): the widest vectors first, then narrower
// ones, then scalars, so one generic body serves the bulk and the tail
template<class F>
static inline void for_widths(int n, const F& f)
{
    int i = 0;
#if KITE_SIMD_MAX_N >= 16
    for (; i + 16 <= n; i += 16)
        f(VF<16>(), i);
#endif
#if KITE_SIMD_MAX_N >= 8
    for (; i + 8 <= n; i += 8)
        f(VF<8>(), i);
#endif
#if KITE_SIMD_MAX_N >= 4
    for (; i + 4 <= n; i += 4)
        f(VF<4>(), i);
#endif
    for (; i < n; i++)
        f(VF<1>(), i);
}

} // namespace simd
} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_SIMD_H
