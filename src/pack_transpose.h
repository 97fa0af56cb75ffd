// 4x4 transposes of 4-byte units with SSE2 (the x86-64 baseline, so no
// run-time check): convert_packing (src/mat.cpp) and the x86 channel copies
// between elempacks (layer/cpu/packing_cpu.h: Concat, Slice, Crop) share it.
// Static: every translation unit (each per-ISA layer wrapper) keeps its own copy.
#ifndef KITE_PACK_TRANSPOSE_H
#define KITE_PACK_TRANSPOSE_H

#include <stddef.h>

#if defined(__SSE2__)
#include <emmintrin.h>

namespace kite {

// step t = 0 .. steps-1: the 16 bytes at s[k] + t * s_step (k = 0..3) are
// four 4-byte units; unit j of row k goes to unit k of row j, row j stored at
// d[j] + t * d_step
static inline void transpose4x4_u32(const unsigned char* const s[4], size_t s_step, unsigned char* const d[4], size_t d_step,
                                    size_t steps)
{
    for (size_t t = 0; t < steps; t++)
    {
        __m128 a = _mm_loadu_ps((const float*)(s[0] + t * s_step));
        __m128 b = _mm_loadu_ps((const float*)(s[1] + t * s_step));
        __m128 c = _mm_loadu_ps((const float*)(s[2] + t * s_step));
        __m128 e = _mm_loadu_ps((const float*)(s[3] + t * s_step));
        _MM_TRANSPOSE4_PS(a, b, c, e);
        _mm_storeu_ps((float*)(d[0] + t * d_step), a);
        _mm_storeu_ps((float*)(d[1] + t * d_step), b);
        _mm_storeu_ps((float*)(d[2] + t * d_step), c);
        _mm_storeu_ps((float*)(d[3] + t * d_step), e);
    }
}

} // namespace kite

#endif // __SSE2__

#endif // KITE_PACK_TRANSPOSE_H
