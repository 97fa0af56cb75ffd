#include "expanddims.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

ExpandDims::ExpandDims()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int ExpandDims::load_param(const ParamDict& pd)
{
    expand_w = pd.get(PARAM_EXPAND_W, 0);
    expand_h = pd.get(PARAM_EXPAND_H, 0);
    expand_d = pd.get(PARAM_EXPAND_D, 0);
    expand_c = pd.get(PARAM_EXPAND_C, 0);
    axes = pd.get(PARAM_AXES, Mat());
    if (axes.w > 3)
    {
        KITE_LOGE("ExpandDims '%s': %d axes, at most 3 can be added", name.c_str(), axes.w);
        return -1;
    }
    return 0;
}

int ExpandDims::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("ExpandDims '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const shape::Dims in = shape::dims_of(bottom_blob);
    const int naxes = axes.empty() ? 0 : axes.w;
    const int outdims = in.n + naxes;
    if (outdims > 4)
    {
        KITE_LOGE("ExpandDims '%s': %d axes added to a %d-dims blob exceed 4 dims", name.c_str(), naxes, in.n);
        return -1;
    }
    bool inserted[4] = {false, false, false, false};
    const int* ap = axes;
    for (int i = 0; i < naxes; i++)
    {
        const int a = shape::normalize_axis(ap[i], outdims);
        if (a < 0 || inserted[a])
        {
            KITE_LOGE("ExpandDims '%s': axis %d out of range or repeated for %d output dims", name.c_str(), ap[i], outdims);
            return -1;
        }
        inserted[a] = true;
    }
    shape::Dims out;
    out.n = outdims;
    int k = 0;
    for (int i = 0; i < outdims; i++)
        out.s[i] = inserted[i] ? 1 : in.s[k++];

    if (out.n == 1)
        top_blob = bottom_blob.reshape(out.s[0], opt.blob_allocator);
    if (out.n == 2)
        top_blob = bottom_blob.reshape(out.s[1], out.s[0], opt.blob_allocator);
    if (out.n == 3)
        top_blob = bottom_blob.reshape(out.s[2], out.s[1], out.s[0], opt.blob_allocator);
    if (out.n == 4)
        top_blob = bottom_blob.reshape(out.s[3], out.s[2], out.s[1], out.s[0], opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    return 0;
}

DEFINE_LAYER_CREATOR(ExpandDims)

} // namespace kite
