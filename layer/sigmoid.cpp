#include "sigmoid.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

Sigmoid::Sigmoid()
{
    one_blob_only = true;
    support_inplace = true;
}

int Sigmoid::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "Sigmoid", name, [](float x) { return mathops::sigmoid(x); });
}

DEFINE_LAYER_CREATOR(Sigmoid)

} // namespace kite
