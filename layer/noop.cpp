#include "noop.h"

namespace kite {

Noop::Noop()
{
    one_blob_only = false;
    support_inplace = true;
    // it never looks at the data, so any layout and storage passes through
    support_packing = true;
    support_fp16_storage = true;
    support_bf16_storage = true;
}

int Noop::forward_inplace(std::vector<Mat>& /*bottom_top_blobs*/, const Option& /*opt*/) const
{
    return 0;
}

DEFINE_LAYER_CREATOR(Noop)

} // namespace kite
