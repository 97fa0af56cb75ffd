#include "pooling.h"

#include "log.h"

namespace kite {

Pooling::Pooling()
{
    one_blob_only = true;
    support_inplace = false;
}

int Pooling::load_param(const ParamDict& pd)
{
    p.pooling_type = pd.get(PARAM_POOLING_TYPE, 0);
    p.kernel[0] = pd.get(PARAM_KERNEL_W, 0);
    p.kernel[1] = pd.get(PARAM_KERNEL_H, p.kernel[0]);
    p.kernel[2] = 1;
    p.stride[0] = pd.get(PARAM_STRIDE_W, 1);
    p.stride[1] = pd.get(PARAM_STRIDE_H, p.stride[0]);
    p.stride[2] = 1;
    p.pad_lo[0] = pd.get(PARAM_PAD_LEFT, 0);
    p.pad_hi[0] = pd.get(PARAM_PAD_RIGHT, p.pad_lo[0]);
    p.pad_lo[1] = pd.get(PARAM_PAD_TOP, p.pad_lo[0]);
    p.pad_hi[1] = pd.get(PARAM_PAD_BOTTOM, p.pad_lo[1]);
    p.pad_lo[2] = 0;
    p.pad_hi[2] = 0;
    p.global_pooling = pd.get(PARAM_GLOBAL_POOLING, 0);
    p.pad_mode = pd.get(PARAM_PAD_MODE, 0);
    p.avgpool_count_include_pad = pd.get(PARAM_AVGPOOL_COUNT_INCLUDE_PAD, 0);
    p.adaptive_pooling = pd.get(PARAM_ADAPTIVE_POOLING, 0);
    p.out_size[0] = pd.get(PARAM_OUT_W, 0);
    p.out_size[1] = pd.get(PARAM_OUT_H, p.out_size[0]);
    p.out_size[2] = 1;
    return pooling_nd_check(p, "Pooling", name.c_str(), 2);
}

int Pooling::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.dims != 3 && bottom_blob.dims != 2)
    {
        KITE_LOGE("Pooling '%s': expects a 3-D (w, h, c) input, got dims %d", name.c_str(), bottom_blob.dims);
        return -1;
    }
    const int channels = bottom_blob.dims == 3 ? bottom_blob.c : 1;
    const size_t cstep = bottom_blob.dims == 3 ? bottom_blob.cstep : (size_t)bottom_blob.w * bottom_blob.h;
    return pooling_nd_forward(p, "Pooling", name.c_str(), bottom_blob, bottom_blob.w, bottom_blob.h, 1, channels,
                              cstep, 2, top_blob, opt);
}

DEFINE_LAYER_CREATOR(Pooling)

} // namespace kite
