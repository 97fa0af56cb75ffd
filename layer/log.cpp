#include "log.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Log::Log()
{
    one_blob_only = true;
    support_inplace = true;
}

int Log::load_param(const ParamDict& pd)
{
    base = pd.get(PARAM_BASE, -1.f);
    scale = pd.get(PARAM_SCALE, 1.f);
    shift = pd.get(PARAM_SHIFT, 0.f);
    return 0;
}

int Log::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const float s = scale, t = shift;
    if (base == -1.f)
        return apply_inplace(bottom_top_blob, opt, "Log", name, [s, t](float x) { return logf(t + x * s); });
    const float log_base_inv = 1.f / logf(base);
    return apply_inplace(bottom_top_blob, opt, "Log", name, [s, t, log_base_inv](float x) { return logf(t + x * s) * log_base_inv; });
}

DEFINE_LAYER_CREATOR(Log)

} // namespace kite
