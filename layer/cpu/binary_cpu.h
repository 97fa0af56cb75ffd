#ifndef KITE_CPU_BINARY_H
#define KITE_CPU_BINARY_H

// Element-wise two-operand kernels for the x86 drivers (BinaryOp, Eltwise),
// included by layer/cpu/*_cpu.cpp and compiled per ISA inside
// kite::KITE_ISA_NS. Operands are packed blobs of the same shape, elempack
// and storage (fp32 or fp16); values are computed in fp32.

#include "layer.h"
#include "simd/simd.h"

namespace kite {
namespace KITE_ISA_NS {

// the ops BinaryOp and Eltwise vectorise, by BinaryOp's numbering
enum BinaryKernelOp
{
    BK_ADD = 0,
    BK_SUB = 1,
    BK_MUL = 2,
    BK_DIV = 3,
    BK_MAX = 4,
    BK_MIN = 5,
    BK_RSUB = 7,
    BK_RDIV = 8,
};

static inline bool binary_kernel_has(int op)
{
    return (op >= BK_ADD && op <= BK_MIN) || op == BK_RSUB || op == BK_RDIV;
}

template<class V>
static inline typename V::T binary_kernel(int op, typename V::T a, typename V::T b)
{
    switch (op)
    {
    case BK_ADD: return V::add(a, b);
    case BK_SUB: return V::sub(a, b);
    case BK_MUL: return V::mul(a, b);
    case BK_DIV: return V::div(a, b);
    case BK_MAX: return V::max(a, b);
    case BK_MIN: return V::min(a, b);
    case BK_RSUB: return V::sub(b, a);
    default: return V::div(b, a); // BK_RDIV
    }
}

// out[i] = op(a[i], b[i]) for n scalars (out may be a)
template<class S>
static inline void binary_run(int op, const S* a, const S* b, S* out, size_t n)
{
    size_t i = 0;
#if KITE_SIMD_MAX_N >= 16
    for (; i + 16 <= n; i += 16)
        simd::VF<16>::store(out + i, binary_kernel<simd::VF<16> >(op, simd::VF<16>::load(a + i), simd::VF<16>::load(b + i)));
#endif
#if KITE_SIMD_MAX_N >= 8
    for (; i + 8 <= n; i += 8)
        simd::VF<8>::store(out + i, binary_kernel<simd::VF<8> >(op, simd::VF<8>::load(a + i), simd::VF<8>::load(b + i)));
#endif
    for (; i + 4 <= n; i += 4)
        simd::VF<4>::store(out + i, binary_kernel<simd::VF<4> >(op, simd::VF<4>::load(a + i), simd::VF<4>::load(b + i)));
    for (; i < n; i++)
        simd::VF<1>::store(out + i, binary_kernel<simd::VF<1> >(op, simd::VF<1>::load(a + i), simd::VF<1>::load(b + i)));
}

// out[i] = op(a[i], B) with B the P scalars b[0..P) repeated (a per-channel
// operand of a pack-P blob; P == 1 broadcasts one value)
template<int P, class S>
static inline void binary_run_repeat(int op, const S* a, const S* b, S* out, size_t n)
{
    typedef simd::VF<P> V;
    const typename V::T vb = V::load(b);
    for (size_t i = 0; i < n; i += P)
        V::store(out + i, binary_kernel<V>(op, V::load(a + i), vb));
}

static inline bool same_layout(const Mat& a, const Mat& b)
{
    return a.dims == b.dims && a.w == b.w && a.h == b.h && a.d == b.d && a.c == b.c && a.elempack == b.elempack
           && a.elemsize == b.elemsize;
}

// scalars in one channel of m, and from one channel to the next (dims 1/2: one channel)
static inline size_t channel_scalars(const Mat& m)
{
    return (size_t)m.w * m.h * m.d * m.elempack;
}

static inline size_t channel_stride(const Mat& m)
{
    return m.dims >= 3 ? m.cstep * m.elempack : 0;
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_BINARY_H
