#include "split.h"

#include "log.h"

namespace kite {

Split::Split()
{
    one_blob_only = false;
    support_inplace = false;
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Split::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option&) const
{
    if (bottom_blobs.size() != 1)
    {
        KITE_LOGE("Split '%s': expects one input, got %d", name.c_str(), (int)bottom_blobs.size());
        return -1;
    }
    for (Mat& t : top_blobs)
        t = bottom_blobs[0];
    return 0;
}

DEFINE_LAYER_CREATOR(Split)

} // namespace kite
