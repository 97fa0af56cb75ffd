#include "shufflechannel.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

ShuffleChannel::ShuffleChannel()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int ShuffleChannel::load_param(const ParamDict& pd)
{
    group = pd.get(PARAM_GROUP, 1);
    reverse = pd.get(PARAM_REVERSE, 0);
    if (group <= 0)
    {
        KITE_LOGE("ShuffleChannel '%s': group must be positive, got %d", name.c_str(), group);
        return -1;
    }
    return 0;
}

int ShuffleChannel::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob) || bottom_blob.dims < 3)
    {
        KITE_LOGE("ShuffleChannel '%s': input must be a non-empty elempack 1 blob of dims 3 or 4", name.c_str());
        return -1;
    }
    const int channels = bottom_blob.c;
    if (channels % group != 0)
    {
        KITE_LOGE("ShuffleChannel '%s': %d channels do not divide into %d groups", name.c_str(), channels, group);
        return -1;
    }
    int g = group;
    int cpg = channels / group;
    if (reverse)
    {
        g = cpg;
        cpg = group;
    }
    top_blob.create_like(bottom_blob, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    const size_t bytes = (size_t)bottom_blob.w * bottom_blob.h * bottom_blob.d * bottom_blob.elemsize;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        // q = i * g + j  <-  input channel j * cpg + i
        const int i = q / g;
        const int j = q % g;
        memcpy(shape::ptr_at(top_blob, q, 0, 0, 0), shape::ptr_at(bottom_blob, j * cpg + i, 0, 0, 0), bytes);
    }
    return 0;
}

DEFINE_LAYER_CREATOR(ShuffleChannel)

} // namespace kite
