#include "pooling1d.h"

#include "log.h"

namespace kite {

Pooling1D::Pooling1D()
{
    one_blob_only = true;
    support_inplace = false;
}

int Pooling1D::load_param(const ParamDict& pd)
{
    p.pooling_type = pd.get(PARAM_POOLING_TYPE, 0);
    p.kernel[0] = pd.get(PARAM_KERNEL_W, 0);
    p.stride[0] = pd.get(PARAM_STRIDE_W, 1);
    p.pad_lo[0] = pd.get(PARAM_PAD_LEFT, 0);
    p.pad_hi[0] = pd.get(PARAM_PAD_RIGHT, p.pad_lo[0]);
    for (int i = 1; i < 3; i++)
    {
        p.kernel[i] = 1;
        p.stride[i] = 1;
        p.pad_lo[i] = 0;
        p.pad_hi[i] = 0;
        p.out_size[i] = 1;
    }
    p.global_pooling = pd.get(PARAM_GLOBAL_POOLING, 0);
    p.pad_mode = pd.get(PARAM_PAD_MODE, 0);
    p.avgpool_count_include_pad = pd.get(PARAM_AVGPOOL_COUNT_INCLUDE_PAD, 0);
    p.adaptive_pooling = pd.get(PARAM_ADAPTIVE_POOLING, 0);
    p.out_size[0] = pd.get(PARAM_OUT_W, 0);
    return pooling_nd_check(p, "Pooling1D", name.c_str(), 1);
}

int Pooling1D::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.dims != 2 && bottom_blob.dims != 1)
    {
        KITE_LOGE("Pooling1D '%s': expects a 2-D (w, h = channels) input, got dims %d", name.c_str(), bottom_blob.dims);
        return -1;
    }
    const int channels = bottom_blob.dims == 2 ? bottom_blob.h : 1;
    return pooling_nd_forward(p, "Pooling1D", name.c_str(), bottom_blob, bottom_blob.w, 1, 1, channels,
                              (size_t)bottom_blob.w, 1, top_blob, opt);
}

DEFINE_LAYER_CREATOR(Pooling1D)

} // namespace kite
