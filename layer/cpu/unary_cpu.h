#ifndef KITE_CPU_UNARY_H
#define KITE_CPU_UNARY_H

// Element-wise in-place maps for the CPU drivers (included by
// layer/cpu/*_cpu.cpp, compiled per ISA inside kite::KITE_ISA_NS).
//
// An element-wise op does not care about the layout: every channel of a Mat
// of any dims and any elempack is one contiguous run of w*h*d*elempack
// scalars, fp32 or fp16 (storage only: values are computed in fp32).
//
//   unary_inplace_cpu(m, opt, f)   f is a generic functor f(VF<N>(), v) -> v,
//                                  called at the widest width first, then
//                                  narrower ones for the tail, finally VF<1>;
//                                  unary_inplace_cpu<true> also calls it with
//                                  simd::HF8 on fp16 data where the ISA has fp16
//                                  arithmetic (arm82), for maps exact enough in fp16
//   unary_inplace_scalar(m, opt, g) g(float) -> float, for maps with no
//                                  vector form (sin, atan, ...)
//
// Work is split over channels, or over slices of one channel when there are
// fewer channels than threads (dims 1/2 blobs).

#include "layer.h"
#include "simd/simd.h"

#include <algorithm>

namespace kite {
namespace KITE_ISA_NS {

template<bool FP16_ARITH, class S, class F>
static inline void unary_run(S* p, size_t n, const F& f)
{
    size_t i = 0;
#if KITE_SIMD_HF8
    if constexpr (FP16_ARITH && sizeof(S) == 2)
    {
        for (; i + 8 <= n; i += 8)
            simd::HF8::store(p + i, f(simd::HF8(), simd::HF8::load(p + i)));
    }
#endif
#if KITE_SIMD_MAX_N >= 16
    for (; i + 16 <= n; i += 16)
        simd::VF<16>::store(p + i, f(simd::VF<16>(), simd::VF<16>::load(p + i)));
#endif
#if KITE_SIMD_MAX_N >= 8
    for (; i + 8 <= n; i += 8)
        simd::VF<8>::store(p + i, f(simd::VF<8>(), simd::VF<8>::load(p + i)));
#endif
    for (; i + 4 <= n; i += 4)
        simd::VF<4>::store(p + i, f(simd::VF<4>(), simd::VF<4>::load(p + i)));
    for (; i < n; i++)
        simd::VF<1>::store(p + i, f(simd::VF<1>(), simd::VF<1>::load(p + i)));
}

// calls run(ptr, n) for every slice of every channel, in parallel
template<class S, class R>
static inline void for_each_slice(Mat& m, const Option& opt, const R& run)
{
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t size = (size_t)m.w * m.h * m.d * m.elempack;
    const size_t cstride = m.dims >= 3 ? m.cstep * m.elempack : 0;
    size_t chunk = size;
    if (channels < opt.num_threads && size > 4096)
        chunk = std::max<size_t>(1024, ((size + opt.num_threads - 1) / opt.num_threads + 15) / 16 * 16);
    const int nchunks = (int)((size + chunk - 1) / chunk);
    const int tasks = channels * nchunks;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int t = 0; t < tasks; t++)
    {
        const int q = t / nchunks;
        const size_t start = (size_t)(t % nchunks) * chunk;
        S* p = (S*)m.data + cstride * q + start;
        run(p, std::min(chunk, size - start));
    }
}

template<bool FP16_ARITH = false, class F>
static inline int unary_inplace_cpu(Mat& m, const Option& opt, const F& f)
{
    if (m.elembits() == 16)
        for_each_slice<unsigned short>(m, opt, [&](unsigned short* p, size_t n) { unary_run<FP16_ARITH>(p, n, f); });
    else
        for_each_slice<float>(m, opt, [&](float* p, size_t n) { unary_run<FP16_ARITH>(p, n, f); });
    return 0;
}

template<class G>
static inline int unary_inplace_scalar(Mat& m, const Option& opt, const G& g)
{
    if (m.elembits() == 16)
    {
        for_each_slice<unsigned short>(m, opt, [&](unsigned short* p, size_t n) {
            for (size_t i = 0; i < n; i++)
                p[i] = float32_to_float16(g(float16_to_float32(p[i])));
        });
    }
    else
    {
        for_each_slice<float>(m, opt, [&](float* p, size_t n) {
            for (size_t i = 0; i < n; i++)
                p[i] = g(p[i]);
        });
    }
    return 0;
}

} // namespace KITE_ISA_NS
} // namespace kite

// A whole element-wise CPU driver: TYPE_cpu derives from the reference TYPE,
// takes any elempack and fp16 storage where the ISA converts in one
// instruction (KITE_SIMD_F16C: F16C, aarch64), and maps every element
// through EXPR, an expression in the vector x of type V::T (V = VF<N>) that
// may use the reference class's members. KITE_CPU_UNARY_DRIVER_FP16 also
// evaluates EXPR on simd::HF8 (fp16 arithmetic, arm82) for fp16 data: only
// for maps whose fp16 evaluation is as exact as fp16 storage (ReLU).
#define KITE_CPU_UNARY_DRIVER_IMPL(TYPE, FP16_ARITH, EXPR)                                 \
    class KITE_CAT(TYPE, cpu) : public TYPE                                                \
    {                                                                                      \
    public:                                                                                \
        KITE_CAT(TYPE, cpu)()                                                              \
        {                                                                                  \
            support_packing = true;                                                        \
            support_fp16_storage = KITE_SIMD_F16C;                                         \
        }                                                                                  \
        int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override        \
        {                                                                                  \
            return unary_inplace_cpu<FP16_ARITH>(bottom_top_blob, opt, [this](auto tag, auto x) { \
                typedef decltype(tag) V;                                                   \
                (void)this;                                                                \
                return EXPR;                                                               \
            });                                                                            \
        }                                                                                  \
    };                                                                                     \
    DEFINE_LAYER_CREATOR(KITE_CAT(TYPE, cpu))
#define KITE_CPU_UNARY_DRIVER(TYPE, EXPR) KITE_CPU_UNARY_DRIVER_IMPL(TYPE, false, EXPR)
#define KITE_CPU_UNARY_DRIVER_FP16(TYPE, EXPR) KITE_CPU_UNARY_DRIVER_IMPL(TYPE, true, EXPR)

#endif // KITE_CPU_UNARY_H
