#include "bnll.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

BNLL::BNLL()
{
    one_blob_only = true;
    support_inplace = true;
}

int BNLL::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "BNLL", name, [](float x) { return mathops::bnll(x); });
}

DEFINE_LAYER_CREATOR(BNLL)

} // namespace kite
