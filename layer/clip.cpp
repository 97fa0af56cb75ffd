#include "clip.h"

#include "common/math_ops.h"

#include <cfloat>

#include <cmath>

namespace kite {

Clip::Clip()
{
    one_blob_only = true;
    support_inplace = true;
}

int Clip::load_param(const ParamDict& pd)
{
    min = pd.get(PARAM_MIN, -FLT_MAX);
    max = pd.get(PARAM_MAX, FLT_MAX);
    return 0;
}

int Clip::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    const float lo = min;
    const float hi = max;
    return apply_inplace(bottom_top_blob, opt, "Clip", name, [lo, hi](float x) {
        if (x < lo)
            x = lo;
        if (x > hi)
            x = hi;
        return x;
    });
}

DEFINE_LAYER_CREATOR(Clip)

} // namespace kite
