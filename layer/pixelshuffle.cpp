#include "pixelshuffle.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

PixelShuffle::PixelShuffle()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int PixelShuffle::load_param(const ParamDict& pd)
{
    upscale_factor = pd.get(PARAM_UPSCALE_FACTOR, 1);
    mode = pd.get(PARAM_MODE, 0);
    if (upscale_factor <= 0 || (mode != 0 && mode != 1))
    {
        KITE_LOGE("PixelShuffle '%s': invalid upscale_factor %d or mode %d", name.c_str(), upscale_factor, mode);
        return -1;
    }
    return 0;
}

int PixelShuffle::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int r = upscale_factor;
    if (!shape::plain_blob(bottom_blob) || bottom_blob.dims != 3 || bottom_blob.c % (r * r) != 0)
    {
        char buf[64];
        KITE_LOGE("PixelShuffle '%s': needs a dims 3 elempack 1 blob with channels divisible by %d, got %s", name.c_str(), r * r,
                  shape::dims_string(bottom_blob, buf, sizeof(buf)));
        return -1;
    }
    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    const int outw = w * r;
    const int outh = h * r;
    const int outc = bottom_blob.c / (r * r);
    const size_t es = bottom_blob.elemsize;
    top_blob.create(outw, outh, outc, es, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int p = 0; p < outc; p++)
    {
        for (int sy = 0; sy < r; sy++)
        {
            for (int sx = 0; sx < r; sx++)
            {
                const int q = mode == 0 ? p * r * r + sy * r + sx : (sy * r + sx) * outc + p;
                for (int i = 0; i < h; i++)
                {
                    const unsigned char* ptr = shape::ptr_at(bottom_blob, q, 0, i, 0);
                    unsigned char* outptr = shape::ptr_at(top_blob, p, 0, i * r + sy, sx);
                    for (int j = 0; j < w; j++)
                        memcpy(outptr + (size_t)j * r * es, ptr + j * es, es);
                }
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(PixelShuffle)

} // namespace kite
