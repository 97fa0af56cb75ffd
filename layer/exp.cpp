#include "exp.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Exp::Exp()
{
    one_blob_only = true;
    support_inplace = true;
}

int Exp::load_param(const ParamDict& pd)
{
    base = pd.get(PARAM_BASE, -1.f);
    scale = pd.get(PARAM_SCALE, 1.f);
    shift = pd.get(PARAM_SHIFT, 0.f);
    return 0;
}

int Exp::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const float b = base, s = scale, t = shift;
    if (b == -1.f)
        return apply_inplace(bottom_top_blob, opt, "Exp", name, [s, t](float x) { return expf(t + x * s); });
    return apply_inplace(bottom_top_blob, opt, "Exp", name, [b, s, t](float x) { return powf(b, t + x * s); });
}

DEFINE_LAYER_CREATOR(Exp)

} // namespace kite
