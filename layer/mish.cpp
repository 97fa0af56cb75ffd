#include "mish.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Mish::Mish()
{
    one_blob_only = true;
    support_inplace = true;
}

int Mish::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "Mish", name, [](float x) { return mathops::mish(x); });
}

DEFINE_LAYER_CREATOR(Mish)

} // namespace kite
