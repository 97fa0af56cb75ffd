#ifndef KITE_LAYER_ARM_UNARY_ARM_H
#define KITE_LAYER_ARM_UNARY_ARM_H

// Element-wise in-place helpers for the ARM drivers (compiled once per ARM
// level inside kite::KITE_ISA_NS). unary_inplace(m, op, opt) walks every
// scalar of an fp32 or fp16-storage Mat of any elempack and dims:
//   fp32          VF<4> body, VF<1> tail
//   fp16, arm82   HF8 body (fp16 arithmetic), VF<1> tail in fp32
//   fp16, neon    VF<4> with conversions, VF<1> tail
// `op` is a functor with `template<class V> typename V::T operator()(typename V::T) const`
// for V = VF<1>, VF<4> and, where its `static const bool hf8` is true, HF8
// (arm82); ops that need fp32 precision (exp, tanh) set hf8 = false and take
// the fp16 data through VF<4> conversions instead.

#include "mat.h"
#include "option.h"
#include "simd/simd_neon.h"

namespace kite {
namespace KITE_ISA_NS {

template<class Op>
static void unary_inplace(Mat& m, const Op& op, const Option& opt)
{
    using namespace simd;
    typedef VF<1> V1;
    typedef VF<4> V4;
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t size = (size_t)m.w * m.h * m.d * m.elempack;
    const size_t stride = m.dims >= 3 ? m.cstep * m.elempack : 0;
    const bool fp16 = m.elembits() == 16;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        size_t i = 0;
        if (!fp16)
        {
            float* p = (float*)m.data + stride * q;
            for (; i + 4 <= size; i += 4)
                V4::store(p + i, op.template operator()<V4>(V4::load(p + i)));
            for (; i < size; i++)
                p[i] = op.template operator()<V1>(p[i]);
            continue;
        }
        unsigned short* p = (unsigned short*)m.data + stride * q;
#if KITE_SIMD_HF8
        if constexpr (Op::hf8)
        {
            for (; i + 8 <= size; i += 8)
                HF8::store(p + i, op.template operator()<HF8>(HF8::load(p + i)));
        }
#endif
        for (; i + 4 <= size; i += 4)
            V4::store(p + i, op.template operator()<V4>(V4::load(p + i)));
        for (; i < size; i++)
            V1::store(p + i, op.template operator()<V1>(V1::load(p + i)));
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_ARM_UNARY_ARM_H
