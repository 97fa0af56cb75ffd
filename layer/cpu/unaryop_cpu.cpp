// UnaryOp, compiled once per CPU ISA level (x86 and ARM): any elempack, fp16 storage
// with F16C. abs/neg/floor/ceil/square/sqrt/rsqrt/exp/log/reciprocal/tanh are
// vectorised (layer/simd); the trigonometric ones, log10, round and trunc run
// the reference's scalar function over the packed data.
#include "unaryop.h"
#include "simd/simd_math.h"
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class UnaryOp_cpu : public UnaryOp
{
public:
    UnaryOp_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    template<class F>
    static int map(Mat& m, const Option& opt, const F& f)
    {
        return unary_inplace_cpu(m, opt, [&](auto tag, auto x) { return f(tag, x); });
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        using simd::VF;
        switch (op_type)
        {
        case Operation_ABS: return map(m, opt, [](auto t, auto x) { return decltype(t)::abs(x); });
        case Operation_NEG: return map(m, opt, [](auto t, auto x) { return decltype(t)::neg(x); });
        case Operation_FLOOR: return map(m, opt, [](auto t, auto x) { return decltype(t)::floor(x); });
        case Operation_CEIL:
            return map(m, opt, [](auto t, auto x) { typedef decltype(t) V; return V::neg(V::floor(V::neg(x))); });
        case Operation_SQUARE: return map(m, opt, [](auto t, auto x) { return decltype(t)::mul(x, x); });
        case Operation_SQRT: return map(m, opt, [](auto t, auto x) { return decltype(t)::sqrt(x); });
        case Operation_RSQRT:
            return map(m, opt, [](auto t, auto x) { typedef decltype(t) V; return V::div(V::set1(1.f), V::sqrt(x)); });
        case Operation_EXP: return map(m, opt, [](auto t, auto x) { return simd::exp_ps<decltype(t)>(x); });
        case Operation_LOG: return map(m, opt, [](auto t, auto x) { return simd::log_ps<decltype(t)>(x); });
        case Operation_RECIPROCAL:
            return map(m, opt, [](auto t, auto x) { typedef decltype(t) V; return V::div(V::set1(1.f), x); });
        case Operation_TANH: return map(m, opt, [](auto t, auto x) { return simd::tanh_ps<decltype(t)>(x); });
        default:
        {
            const int op = op_type;
            return unary_inplace_scalar(m, opt, [op](float x) { return UnaryOp::apply(op, x); });
        }
        }
    }
};

DEFINE_LAYER_CREATOR(UnaryOp_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
