#include "input.h"

#include "log.h"

namespace kite {

Input::Input()
{
    w = h = d = c = 0;
    fixed_size = 0;
    one_blob_only = true;
    support_inplace = true;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Input::load_param(const ParamDict& pd)
{
    w = pd.get(PARAM_W, 0);
    h = pd.get(PARAM_H, 0);
    d = pd.get(PARAM_D, 0);
    c = pd.get(PARAM_C, 0);
    fixed_size = pd.get(PARAM_FIXED_SIZE, 0);
    if (w < 0 || h < 0 || d < 0 || c < 0)
    {
        KITE_LOGE("Input: negative shape %d x %d x %d x %d", w, h, d, c);
        return -1;
    }
    return 0;
}

int Input::forward_inplace(Mat&, const Option&) const
{
    return 0;
}

DEFINE_LAYER_CREATOR(Input)

} // namespace kite
