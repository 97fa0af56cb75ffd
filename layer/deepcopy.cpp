#include "deepcopy.h"

#include "log.h"

namespace kite {

DeepCopy::DeepCopy()
{
    one_blob_only = true;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int DeepCopy::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.empty())
    {
        KITE_LOGE("DeepCopy '%s': empty input", name.c_str());
        return -1;
    }
    top_blob = bottom_blob.clone(opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    return 0;
}

DEFINE_LAYER_CREATOR(DeepCopy)

} // namespace kite
