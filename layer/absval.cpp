#include "absval.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

AbsVal::AbsVal()
{
    one_blob_only = true;
    support_inplace = true;
}

int AbsVal::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "AbsVal", name, [](float x) { return x < 0.f ? -x : x; });
}

DEFINE_LAYER_CREATOR(AbsVal)

} // namespace kite
