#include "elu.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

ELU::ELU()
{
    one_blob_only = true;
    support_inplace = true;
}

int ELU::load_param(const ParamDict& pd)
{
    alpha = pd.get(PARAM_ALPHA, 0.1f);
    return 0;
}

int ELU::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "ELU", name, [alpha = alpha](float x) { return mathops::elu(x, alpha); });
}

DEFINE_LAYER_CREATOR(ELU)

} // namespace kite
