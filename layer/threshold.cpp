#include "threshold.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Threshold::Threshold()
{
    one_blob_only = true;
    support_inplace = true;
}

int Threshold::load_param(const ParamDict& pd)
{
    threshold = pd.get(PARAM_THRESHOLD, 0.f);
    return 0;
}

int Threshold::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "Threshold", name, [threshold = threshold](float x) { return x > threshold ? 1.f : 0.f; });
}

DEFINE_LAYER_CREATOR(Threshold)

} // namespace kite
