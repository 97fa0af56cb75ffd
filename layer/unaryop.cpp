#include "unaryop.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

UnaryOp::UnaryOp()
{
    one_blob_only = true;
    support_inplace = true;
}

int UnaryOp::load_param(const ParamDict& pd)
{
    op_type = pd.get(PARAM_OP_TYPE, 0);
    if (op_type < 0 || op_type >= Operation_COUNT)
    {
        KITE_LOGE("UnaryOp '%s': unknown op_type %d (0..%d)", name.c_str(), op_type, Operation_COUNT - 1);
        return -1;
    }
    return 0;
}

float UnaryOp::apply(int op, float x)
{
    switch (op)
    {
    case Operation_ABS: return fabsf(x);
    case Operation_NEG: return -x;
    case Operation_FLOOR: return floorf(x);
    case Operation_CEIL: return ceilf(x);
    case Operation_SQUARE: return x * x;
    case Operation_SQRT: return sqrtf(x);
    case Operation_RSQRT: return 1.f / sqrtf(x);
    case Operation_EXP: return expf(x);
    case Operation_LOG: return logf(x);
    case Operation_SIN: return sinf(x);
    case Operation_COS: return cosf(x);
    case Operation_TAN: return tanf(x);
    case Operation_ASIN: return asinf(x);
    case Operation_ACOS: return acosf(x);
    case Operation_ATAN: return atanf(x);
    case Operation_RECIPROCAL: return 1.f / x;
    case Operation_TANH: return tanhf(x);
    case Operation_LOG10: return log10f(x);
    case Operation_ROUND: return mathops::round_half_even(x);
    case Operation_TRUNC: return truncf(x);
    default: return x;
    }
}

template<typename F>
static int run(Mat& m, const Option& opt, const std::string& name, F f)
{
    return apply_inplace(m, opt, "UnaryOp", name, f);
}

int UnaryOp::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    // one loop per op so the switch is not inside the element loop
    switch (op_type)
    {
    case Operation_ABS: return run(bottom_top_blob, opt, name, [](float x) { return fabsf(x); });
    case Operation_NEG: return run(bottom_top_blob, opt, name, [](float x) { return -x; });
    case Operation_FLOOR: return run(bottom_top_blob, opt, name, [](float x) { return floorf(x); });
    case Operation_CEIL: return run(bottom_top_blob, opt, name, [](float x) { return ceilf(x); });
    case Operation_SQUARE: return run(bottom_top_blob, opt, name, [](float x) { return x * x; });
    case Operation_SQRT: return run(bottom_top_blob, opt, name, [](float x) { return sqrtf(x); });
    case Operation_RSQRT: return run(bottom_top_blob, opt, name, [](float x) { return 1.f / sqrtf(x); });
    case Operation_EXP: return run(bottom_top_blob, opt, name, [](float x) { return expf(x); });
    case Operation_LOG: return run(bottom_top_blob, opt, name, [](float x) { return logf(x); });
    case Operation_SIN: return run(bottom_top_blob, opt, name, [](float x) { return sinf(x); });
    case Operation_COS: return run(bottom_top_blob, opt, name, [](float x) { return cosf(x); });
    case Operation_TAN: return run(bottom_top_blob, opt, name, [](float x) { return tanf(x); });
    case Operation_ASIN: return run(bottom_top_blob, opt, name, [](float x) { return asinf(x); });
    case Operation_ACOS: return run(bottom_top_blob, opt, name, [](float x) { return acosf(x); });
    case Operation_ATAN: return run(bottom_top_blob, opt, name, [](float x) { return atanf(x); });
    case Operation_RECIPROCAL: return run(bottom_top_blob, opt, name, [](float x) { return 1.f / x; });
    case Operation_TANH: return run(bottom_top_blob, opt, name, [](float x) { return tanhf(x); });
    case Operation_LOG10: return run(bottom_top_blob, opt, name, [](float x) { return log10f(x); });
    case Operation_ROUND: return run(bottom_top_blob, opt, name, [](float x) { return mathops::round_half_even(x); });
    case Operation_TRUNC: return run(bottom_top_blob, opt, name, [](float x) { return truncf(x); });
    default:
        KITE_LOGE("UnaryOp '%s': unknown op_type %d", name.c_str(), op_type);
        return -1;
    }
}

DEFINE_LAYER_CREATOR(UnaryOp)

} // namespace kite
