// Shared pieces of the CPU convolution-family kernels.
//
// simd::VF<P> (layer/simd) holds the P floats of one packed element (P = 1
// scalar, 4 SSE / NEON, 8 AVX, 16 AVX-512): kernels are templates on P, so one
// source serves every elempack the Net can hand a layer on this ISA.
//
// Included by layer/cpu/*_cpu.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_CPU_CONV_VEC_H
#define KITE_CPU_CONV_VEC_H

#include "common/activation.h"
#include "simd/simd_math.h"
#include "simd/simd.h"

#include <cstring>

namespace kite {
namespace KITE_ISA_NS {

// the widest elempack this ISA has registers for
static const int kMaxPack = KITE_SIMD_MAX_N;

// The activations that take more than a few instructions (sigmoid, mish,
// hard-swish), out of line so that activate() below stays small enough to be
// inlined into every kernel's store
template<int P>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static typename simd::VF<P>::T activate_other(typename simd::VF<P>::T v, const Activation& act)
{
    typedef simd::VF<P> V;
    switch (act.type)
    {
    case ACTIVATION_SIGMOID:
        return simd::sigmoid_ps<V>(v);
    case ACTIVATION_MISH:
        // v * tanh(softplus(v))
        return V::mul(v, simd::tanh_ps<V>(simd::log_ps<V>(V::add(simd::exp_ps<V>(v), V::set1(1.f)))));
    case ACTIVATION_HARDSWISH:
    {
        // 0 below -beta/alpha, v above (1 - beta)/alpha, else v * (alpha v + beta)
        const typename V::T lower = V::set1(-act.p1 / act.p0);
        const typename V::T upper = V::set1(1.f / act.p0 - act.p1 / act.p0);
        typename V::T r = V::mul(v, V::fmadd(v, V::set1(act.p0), V::set1(act.p1)));
        r = V::select(V::lt(v, lower), V::zero(), r);
        r = V::select(V::gt(v, upper), v, r);
        return r;
    }
    default:
        return v;
    }
}

// The fused activation (common/activation.h) on P lanes, in registers;
// sigmoid and mish through layer/simd's exp/log/tanh. ReLU, LeakyReLU and
// Clip round exactly as the scalar definition.
template<int P>
static inline typename simd::VF<P>::T activate(typename simd::VF<P>::T v, const Activation& act)
{
    typedef simd::VF<P> V;
    switch (act.type)
    {
    case ACTIVATION_NONE:
        return v;
    case ACTIVATION_RELU:
        return V::max(v, V::zero());
    case ACTIVATION_LEAKYRELU:
        return V::fmadd(V::min(v, V::zero()), V::set1(act.p0), V::max(v, V::zero()));
    case ACTIVATION_CLIP:
        return V::min(V::max(v, V::set1(act.p0)), V::set1(act.p1));
    default:
        return activate_other<P>(v, act);
    }
}

// keeps v in a register as it is: a product computed before it is rounded on
// its own (the compiler may not contract it with a later add into an FMA)
template<class T>
static inline void simd_round_barrier(T& v)
{
#if defined(__GNUC__) && (defined(__aarch64__) || defined(__ARM_NEON))
    __asm__("" : "+w"(v));
#elif defined(__GNUC__) && defined(__SSE2__)
    __asm__("" : "+v"(v));
#else
    volatile T t = v;
    v = t;
#endif
}

// float2int8 (common/int8.h) on lanes: round half away from zero, clamp to [-127, 127],
// NaN -> 0; integral floats
template<class V>
static inline typename V::T float2int8_ps(typename V::T v)
{
    const typename V::T sign = V::bits(0x80000000u);
    const typename V::T tr = V::or_bits(V::and_bits(v, sign), V::floor(V::abs(v)));
    const typename V::M up = V::le(V::set1(0.5f), V::abs(V::sub(v, tr)));
    typename V::T t = V::select(up, V::add(tr, V::or_bits(V::and_bits(v, sign), V::set1(1.f))), tr);
    t = V::min(V::max(t, V::set1(-127.f)), V::set1(127.f));
    return V::select(V::eq(v, v), t, V::zero());
}

template<int P>
static inline void store_activated(float* p, typename simd::VF<P>::T v, const Activation& act)
{
    simd::VF<P>::store(p, activate<P>(v, act));
}

// The P finished lanes of output pixel n for channels m..m+P-1 (m a multiple
// of P) into a blob of elempack PO (cstep in its elements), channels from M
// on dropped: runs of min(P, PO) lanes stay contiguous
template<int P, int PO>
static inline void store_channels_po(float* out, size_t cstep, int M, int m, size_t n, const float* lanes)
{
    const int c = P < PO ? P : PO;
    for (int k = 0; k < P && m + k < M; k += c)
    {
        const int ch = m + k;
        float* dst = out + cstep * PO * (size_t)(ch / PO) + n * PO + ch % PO;
        if (ch + c <= M)
            memcpy(dst, lanes + k, c * sizeof(float));
        else
            for (int i = 0; ch + i < M; i++)
                dst[i] = lanes[k + i];
    }
}

// the same for the output elempack po (1, 4, 8 or 16) known at run time
template<int P>
static inline void store_channels(float* out, size_t cstep, int po, int M, int m, size_t n, const float* lanes)
{
    switch (po)
    {
    case 1:
        return store_channels_po<P, 1>(out, cstep, M, m, n, lanes);
    case 4:
        return store_channels_po<P, 4>(out, cstep, M, m, n, lanes);
    case 8:
        return store_channels_po<P, 8>(out, cstep, M, m, n, lanes);
    default:
        return store_channels_po<P, 16>(out, cstep, M, m, n, lanes);
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_CONV_VEC_H
