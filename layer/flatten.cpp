#include "flatten.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

Flatten::Flatten()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Flatten::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Flatten '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const size_t total = (size_t)bottom_blob.w * bottom_blob.h * bottom_blob.d * bottom_blob.c;
    if (total > 0x7fffffff)
    {
        KITE_LOGE("Flatten '%s': %zu elements do not fit one axis", name.c_str(), total);
        return -1;
    }
    top_blob = bottom_blob.reshape((int)total, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    return 0;
}

DEFINE_LAYER_CREATOR(Flatten)

} // namespace kite
