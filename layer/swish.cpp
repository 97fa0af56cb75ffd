#include "swish.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Swish::Swish()
{
    one_blob_only = true;
    support_inplace = true;
}

int Swish::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "Swish", name, [](float x) { return mathops::swish(x); });
}

DEFINE_LAYER_CREATOR(Swish)

} // namespace kite
