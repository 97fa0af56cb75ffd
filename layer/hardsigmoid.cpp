#include "hardsigmoid.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

HardSigmoid::HardSigmoid()
{
    one_blob_only = true;
    support_inplace = true;
}

int HardSigmoid::load_param(const ParamDict& pd)
{
    alpha = pd.get(PARAM_ALPHA, 0.2f);
    beta = pd.get(PARAM_BETA, 0.5f);
    lower = -beta / alpha;
    upper = (1.f / alpha) + lower;
    return 0;
}

int HardSigmoid::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const float a = alpha, b = beta, lo = lower, hi = upper;
    return apply_inplace(bottom_top_blob, opt, "HardSigmoid", name, [a, b, lo, hi](float x) {
        if (x < lo)
            return 0.f;
        if (x > hi)
            return 1.f;
        return x * a + b;
    });
}

DEFINE_LAYER_CREATOR(HardSigmoid)

} // namespace kite
