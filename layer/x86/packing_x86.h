#ifndef KITE_X86_PACKING_H
#define KITE_X86_PACKING_H

// Helpers shared by the x86 drivers that take packed blobs (included by
// layer/x86/*_x86.cpp, compiled per ISA inside kite::KITE_ISA_NS).
//
//   to_fp32_pack1(in, out, opt)  an fp32 elempack-1 view or copy of any blob
//   KITE_X86_DISPATCH_PACK(P, ep, CALL) runs CALL with the compile-time int P
//                                        equal to the run-time elempack ep
//                                        (1, 4 and the widths this ISA has; CALL may hold commas)
//
// A driver meets a case it has no packed kernel for (rare parameters, dims it
// does not expect) by running its reference on to_fp32_pack1 of the input:
// correct, and the Net never has to know.

#include "layer.h"
#include "log.h"
#include "simd/simd_x86.h"

namespace kite {
namespace KITE_ISA_NS {

// 0, or -100 when out of memory
static inline int to_fp32_pack1(const Mat& in, Mat& out, const Option& opt)
{
    Mat a = in;
    if (a.elembits() == 16)
    {
        Mat f;
        cast_float16_to_float32(a, f, opt);
        if (f.empty())
            return -100;
        a = f;
    }
    if (a.elempack != 1)
    {
        Mat u;
        convert_packing(a, u, 1, opt);
        if (u.empty())
            return -100;
        a = u;
    }
    out = a;
    return 0;
}

} // namespace KITE_ISA_NS
} // namespace kite

#if KITE_SIMD_MAX_N >= 16
#define KITE_X86_DISPATCH_PACK_WIDE(P, ep, ...) \
    if (ep == 16)                                \
    {                                            \
        const int P = 16;                        \
        __VA_ARGS__;                                  \
    }                                            \
    else if (ep == 8)                            \
    {                                            \
        const int P = 8;                         \
        __VA_ARGS__;                                  \
    }
#elif KITE_SIMD_MAX_N >= 8
#define KITE_X86_DISPATCH_PACK_WIDE(P, ep, ...) \
    if (ep == 8)                                 \
    {                                            \
        const int P = 8;                         \
        __VA_ARGS__;                                  \
    }
#else
#define KITE_X86_DISPATCH_PACK_WIDE(P, ep, ...) \
    if (false)                                   \
    {                                            \
    }
#endif

#define KITE_X86_DISPATCH_PACK(P, ep, ...)  \
    KITE_X86_DISPATCH_PACK_WIDE(P, ep, __VA_ARGS__) \
    else if (ep == 4)                        \
    {                                        \
        const int P = 4;                     \
        __VA_ARGS__;                              \
    }                                        \
    else                                     \
    {                                        \
        const int P = 1;                     \
        __VA_ARGS__;                              \
    }

#endif // KITE_X86_PACKING_H
