#include "gelu.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

GELU::GELU()
{
    one_blob_only = true;
    support_inplace = true;
}

int GELU::load_param(const ParamDict& pd)
{
    fast_gelu = pd.get(PARAM_FAST_GELU, 0);
    return 0;
}

int GELU::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    if (fast_gelu)
        return apply_inplace(bottom_top_blob, opt, "GELU", name, [](float x) { return mathops::gelu_tanh(x); });
    return apply_inplace(bottom_top_blob, opt, "GELU", name, [](float x) { return mathops::gelu_erf(x); });
}

DEFINE_LAYER_CREATOR(GELU)

} // namespace kite
