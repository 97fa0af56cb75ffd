#include "reorg.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

Reorg::Reorg()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Reorg::load_param(const ParamDict& pd)
{
    stride = pd.get(PARAM_STRIDE, 1);
    mode = pd.get(PARAM_MODE, 0);
    if (stride <= 0 || (mode != 0 && mode != 1))
    {
        KITE_LOGE("Reorg '%s': invalid stride %d or mode %d", name.c_str(), stride, mode);
        return -1;
    }
    return 0;
}

int Reorg::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int s = stride;
    if (!shape::plain_blob(bottom_blob) || bottom_blob.dims != 3 || bottom_blob.w < s || bottom_blob.h < s)
    {
        char buf[64];
        KITE_LOGE("Reorg '%s': needs a dims 3 elempack 1 blob of at least %d x %d, got %s", name.c_str(), s, s,
                  shape::dims_string(bottom_blob, buf, sizeof(buf)));
        return -1;
    }
    const int channels = bottom_blob.c;
    const int outw = bottom_blob.w / s;
    const int outh = bottom_blob.h / s;
    const int outc = channels * s * s;
    const size_t es = bottom_blob.elemsize;
    top_blob.create(outw, outh, outc, es, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        for (int sy = 0; sy < s; sy++)
        {
            for (int sx = 0; sx < s; sx++)
            {
                const int o = mode == 0 ? q * s * s + sy * s + sx : (sy * s + sx) * channels + q;
                for (int i = 0; i < outh; i++)
                {
                    const unsigned char* ptr = shape::ptr_at(bottom_blob, q, 0, i * s + sy, sx);
                    unsigned char* outptr = shape::ptr_at(top_blob, o, 0, i, 0);
                    for (int j = 0; j < outw; j++)
                        memcpy(outptr + j * es, ptr + (size_t)j * s * es, es);
                }
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Reorg)

} // namespace kite
