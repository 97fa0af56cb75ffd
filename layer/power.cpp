#include "power.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Power::Power()
{
    one_blob_only = true;
    support_inplace = true;
}

int Power::load_param(const ParamDict& pd)
{
    power = pd.get(PARAM_POWER, 1.f);
    scale = pd.get(PARAM_SCALE, 1.f);
    shift = pd.get(PARAM_SHIFT, 0.f);
    return 0;
}

int Power::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "Power", name, [power = power, scale = scale, shift = shift](float x) { return powf(shift + x * scale, power); });
}

DEFINE_LAYER_CREATOR(Power)

} // namespace kite
