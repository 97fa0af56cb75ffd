#include "squeeze.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

Squeeze::Squeeze()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Squeeze::load_param(const ParamDict& pd)
{
    squeeze_w = pd.get(PARAM_SQUEEZE_W, 0);
    squeeze_h = pd.get(PARAM_SQUEEZE_H, 0);
    squeeze_d = pd.get(PARAM_SQUEEZE_D, 0);
    squeeze_c = pd.get(PARAM_SQUEEZE_C, 0);
    axes = pd.get(PARAM_AXES, Mat());
    return 0;
}

int Squeeze::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Squeeze '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const shape::Dims in = shape::dims_of(bottom_blob);
    const int dims = in.n;
    bool chosen[4] = {false, false, false, false};
    if (!axes.empty())
    {
        const int* ap = axes;
        for (int i = 0; i < axes.w; i++)
        {
            const int a = shape::normalize_axis(ap[i], dims);
            if (a < 0)
            {
                KITE_LOGE("Squeeze '%s': axis %d out of range for a %d-dims input", name.c_str(), ap[i], dims);
                return -1;
            }
            chosen[a] = true;
        }
    }
    else
    {
        // flags -> logical axes of this blob
        chosen[dims - 1] = squeeze_w != 0;
        if (dims >= 2)
            chosen[dims - 2] = squeeze_h != 0;
        if (dims == 3)
            chosen[0] = squeeze_c != 0;
        if (dims == 4)
        {
            chosen[0] = squeeze_c != 0;
            chosen[1] = squeeze_d != 0;
        }
    }
    shape::Dims out;
    out.n = 0;
    for (int i = 0; i < dims; i++)
    {
        if (chosen[i] && in.s[i] == 1)
            continue;
        out.s[out.n++] = in.s[i];
    }
    if (out.n == 0)
    {
        out.n = 1;
        out.s[0] = 1;
    }

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

DEFINE_LAYER_CREATOR(Squeeze)

} // namespace kite
