#include "dropout.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Dropout::Dropout()
{
    one_blob_only = true;
    support_inplace = true;
}

int Dropout::load_param(const ParamDict& pd)
{
    scale = pd.get(PARAM_SCALE, 1.f);
    return 0;
}

int Dropout::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    if (scale == 1.f)
        return 0;
    const float s = scale;
    return apply_inplace(bottom_top_blob, opt, "Dropout", name, [s](float x) { return x * s; });
}

DEFINE_LAYER_CREATOR(Dropout)

} // namespace kite
