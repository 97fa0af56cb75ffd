#include "selu.h"

#include "common/math_ops.h"

#include <cmath>

namespace kite {

SELU::SELU()
{
    one_blob_only = true;
    support_inplace = true;
}

int SELU::load_param(const ParamDict& pd)
{
    alpha = pd.get(PARAM_ALPHA, 1.67326324f);
    lambda = pd.get(PARAM_LAMBDA, 1.050700987f);
    alpha_lambda = alpha * lambda;
    return 0;
}

int SELU::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    return apply_inplace(bottom_top_blob, opt, "SELU", name, [al = alpha_lambda, lambda = lambda](float x) { return mathops::selu(x, al, lambda); });
}

DEFINE_LAYER_CREATOR(SELU)

} // namespace kite
