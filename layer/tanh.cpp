#include "tanh.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

TanH::TanH()
{
    one_blob_only = true;
    support_inplace = true;
}

int TanH::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "TanH", name, [](float x) { return tanhf(x); });
}

DEFINE_LAYER_CREATOR(TanH)

} // namespace kite
