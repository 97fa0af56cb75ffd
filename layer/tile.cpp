#include "tile.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

Tile::Tile()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Tile::load_param(const ParamDict& pd)
{
    axis = pd.get(PARAM_AXIS, 0);
    tiles = pd.get(PARAM_TILES, 1);
    repeats = pd.get(PARAM_REPEATS, Mat());
    if (!repeats.empty())
    {
        if (repeats.w > 4)
        {
            KITE_LOGE("Tile '%s': %d repeats, at most 4 dims are supported", name.c_str(), repeats.w);
            return -1;
        }
        const int* rp = repeats;
        for (int i = 0; i < repeats.w; i++)
        {
            if (rp[i] <= 0)
            {
                KITE_LOGE("Tile '%s': repeat %d is %d, must be positive", name.c_str(), i, rp[i]);
                return -1;
            }
        }
    }
    else if (tiles <= 0)
    {
        KITE_LOGE("Tile '%s': tiles must be positive, got %d", name.c_str(), tiles);
        return -1;
    }
    return 0;
}

int Tile::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Tile '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const shape::Dims ind = shape::dims_of(bottom_blob);
    const int dims = ind.n;

    // input extents right-aligned to the output's logical axes, and the repeats
    shape::Dims outd;
    int rep[4] = {1, 1, 1, 1};
    if (!repeats.empty())
    {
        outd.n = dims > repeats.w ? dims : repeats.w;
        const int* rp = repeats;
        for (int i = 0; i < repeats.w; i++)
            rep[outd.n - repeats.w + i] = rp[i];
    }
    else
    {
        const int a = shape::normalize_axis(axis, dims);
        if (a < 0)
        {
            KITE_LOGE("Tile '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, dims);
            return -1;
        }
        outd.n = dims;
        rep[a] = tiles;
    }
    // as ncnn, the input keeps its (c, d, h, w) place when the output gains
    // axes (a dims 3 blob tiled to dims 4 gets d = 1, not a new outer axis)
    int sext[4], rext[4], ext[4];
    shape::to_cdhw(ind, sext);
    shape::Dims repd = outd;
    for (int i = 0; i < outd.n; i++)
        repd.s[i] = rep[i];
    shape::to_cdhw(repd, rext);
    for (int i = 0; i < 4; i++)
        ext[i] = sext[i] * rext[i];
    for (int i = 0; i < outd.n; i++)
        outd.s[i] = ext[shape::cdhw_axis(outd.n, i)];
    for (int i = 0; i < 4; i++)
    {
        // an axis the output does not have must stay 1
        bool present = false;
        for (int k = 0; k < outd.n; k++)
            present = present || shape::cdhw_axis(outd.n, k) == i;
        if (!present && ext[i] != 1)
        {
            KITE_LOGE("Tile '%s': %d repeats cannot hold a %d-dims input", name.c_str(), outd.n, dims);
            return -1;
        }
    }

    shape::create_dims(top_blob, outd, bottom_blob.elemsize, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const size_t rowbytes = (size_t)sext[3] * bottom_blob.elemsize;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < ext[0]; q++)
    {
        for (int z = 0; z < ext[1]; z++)
        {
            for (int y = 0; y < ext[2]; y++)
            {
                const unsigned char* ptr = shape::ptr_at(bottom_blob, q % sext[0], z % sext[1], y % sext[2], 0);
                unsigned char* outptr = shape::ptr_at(top_blob, q, z, y, 0);
                for (int t = 0; t < rext[3]; t++)
                    memcpy(outptr + t * rowbytes, ptr, rowbytes);
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Tile)

} // namespace kite
