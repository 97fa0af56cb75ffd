#include "spacetobatchnd.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

SpaceToBatchND::SpaceToBatchND()
{
    one_blob_only = true;
    support_inplace = false;
}

// shared by both layers: [bh, bw] and [top, bottom, left, right]
int load_block_params(const ParamDict& pd, const char* type, const std::string& name, int* block, int* pads)
{
    Mat bs = pd.get(0, Mat());
    Mat ps = pd.get(1, Mat());
    if (bs.w != 2)
    {
        KITE_LOGE("%s '%s': block_shape (0) must be an array [bh, bw], got %d values", type, name.c_str(), bs.w);
        return -1;
    }
    if (!ps.empty() && ps.w != 4)
    {
        KITE_LOGE("%s '%s': array 1 must be [top, bottom, left, right], got %d values", type, name.c_str(), ps.w);
        return -1;
    }
    const int* b = bs;
    block[0] = b[0];
    block[1] = b[1];
    for (int i = 0; i < 4; i++)
        pads[i] = ps.empty() ? 0 : ((const int*)ps)[i];
    if (block[0] <= 0 || block[1] <= 0 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
    {
        KITE_LOGE("%s '%s': block [%d, %d] must be positive and [%d %d %d %d] not negative", type, name.c_str(), block[0], block[1],
                  pads[0], pads[1], pads[2], pads[3]);
        return -1;
    }
    return 0;
}

int SpaceToBatchND::load_param(const ParamDict& pd)
{
    int block[2], pads[4];
    if (load_block_params(pd, "SpaceToBatchND", name, block, pads) != 0)
        return -1;
    block_h = block[0];
    block_w = block[1];
    pad_top = pads[0];
    pad_bottom = pads[1];
    pad_left = pads[2];
    pad_right = pads[3];
    return 0;
}

int SpaceToBatchND::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob) || bottom_blob.dims != 3 || bottom_blob.elemsize != 4)
    {
        KITE_LOGE("SpaceToBatchND '%s': input must be a non-empty fp32 elempack 1 dims 3 blob", name.c_str());
        return -1;
    }
    const int w = bottom_blob.w;
    const int h = bottom_blob.h;
    const int channels = bottom_blob.c;
    const int hp = h + pad_top + pad_bottom;
    const int wp = w + pad_left + pad_right;
    if (hp % block_h != 0 || wp % block_w != 0)
    {
        KITE_LOGE("SpaceToBatchND '%s': padded size %d x %d is not a multiple of the block %d x %d", name.c_str(), hp, wp, block_h, block_w);
        return -1;
    }
    const int outh = hp / block_h;
    const int outw = wp / block_w;
    const int outc = channels * block_h * block_w;
    top_blob.create(outw, outh, outc, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int o = 0; o < outc; o++)
    {
        const int b = o / channels;
        const int q = o % channels;
        const int sy = b / block_w;
        const int sx = b % block_w;
        const Mat src = bottom_blob.channel(q);
        float* outptr = top_blob.channel(o);
        for (int i = 0; i < outh; i++)
        {
            const int y = i * block_h + sy - pad_top;
            for (int j = 0; j < outw; j++)
            {
                const int x = j * block_w + sx - pad_left;
                outptr[i * outw + j] = (y >= 0 && y < h && x >= 0 && x < w) ? src.row(y)[x] : 0.f;
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(SpaceToBatchND)

} // namespace kite
