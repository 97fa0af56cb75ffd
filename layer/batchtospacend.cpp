#include "batchtospacend.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

// defined in spacetobatchnd.cpp
int load_block_params(const ParamDict& pd, const char* type, const std::string& name, int* block, int* pads);

BatchToSpaceND::BatchToSpaceND()
{
    one_blob_only = true;
    support_inplace = false;
}

int BatchToSpaceND::load_param(const ParamDict& pd)
{
    int block[2], crops[4];
    if (load_block_params(pd, "BatchToSpaceND", name, block, crops) != 0)
        return -1;
    block_h = block[0];
    block_w = block[1];
    crop_top = crops[0];
    crop_bottom = crops[1];
    crop_left = crops[2];
    crop_right = crops[3];
    return 0;
}

int BatchToSpaceND::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob) || bottom_blob.dims != 3 || bottom_blob.elemsize != 4)
    {
        KITE_LOGE("BatchToSpaceND '%s': input must be a non-empty fp32 elempack 1 dims 3 blob", name.c_str());
        return -1;
    }
    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    const int blocks = block_h * block_w;
    if (bottom_blob.c % blocks != 0)
    {
        KITE_LOGE("BatchToSpaceND '%s': %d channels do not hold %d folded batches", name.c_str(), bottom_blob.c, blocks);
        return -1;
    }
    const int outc = bottom_blob.c / blocks;
    const int outh = h * block_h - crop_top - crop_bottom;
    const int outw = w * block_w - crop_left - crop_right;
    if (outh <= 0 || outw <= 0)
    {
        KITE_LOGE("BatchToSpaceND '%s': crops [%d %d %d %d] remove the whole %d x %d output", name.c_str(), crop_top, crop_bottom,
                  crop_left, crop_right, h * block_h, w * block_w);
        return -1;
    }
    top_blob.create(outw, outh, outc, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < outc; q++)
    {
        float* outptr = top_blob.channel(q);
        for (int y = 0; y < outh; y++)
        {
            const int yy = y + crop_top;
            const int i = yy / block_h;
            const int sy = yy % block_h;
            for (int x = 0; x < outw; x++)
            {
                const int xx = x + crop_left;
                const int j = xx / block_w;
                const int sx = xx % block_w;
                const int ic = (sy * block_w + sx) * outc + q;
                outptr[y * outw + x] = bottom_blob.channel(ic).row(i)[j];
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(BatchToSpaceND)

} // namespace kite
