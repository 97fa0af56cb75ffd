#include "padding.h"

#include "common/shape_util.h"
#include "log.h"

#include <vector>

namespace kite {

Padding::Padding()
{
    one_blob_only = true;
    support_inplace = false;
}

int Padding::load_param(const ParamDict& pd)
{
    top = pd.get(PARAM_TOP, 0);
    bottom = pd.get(PARAM_BOTTOM, 0);
    left = pd.get(PARAM_LEFT, 0);
    right = pd.get(PARAM_RIGHT, 0);
    type = pd.get(PARAM_TYPE, 0);
    value = pd.get(PARAM_VALUE, 0.f);
    per_channel_pad_data_size = pd.get(PARAM_PER_CHANNEL_PAD_DATA_SIZE, 0);
    front = pd.get(PARAM_FRONT, 0);
    behind = pd.get(PARAM_BEHIND, 0);
    if (top < 0 || bottom < 0 || left < 0 || right < 0 || front < 0 || behind < 0 || per_channel_pad_data_size < 0)
    {
        KITE_LOGE("Padding '%s': negative pads are not supported (%d %d %d %d %d %d)", name.c_str(), top, bottom, left, right, front, behind);
        return -1;
    }
    if (type < PAD_CONSTANT || type > PAD_REFLECT)
    {
        KITE_LOGE("Padding '%s': unknown type %d (0 constant, 1 replicate, 2 reflect)", name.c_str(), type);
        return -1;
    }
    return 0;
}

int Padding::load_model(const ModelBin& mb)
{
    if (per_channel_pad_data_size > 0)
    {
        per_channel_pad_data = mb.load(per_channel_pad_data_size, 1);
        if (per_channel_pad_data.empty())
            return -100;
    }
    return 0;
}

// source index of every output position along one axis; -1 = constant pad
static bool axis_map(int size, int before, int after, int type, std::vector<int>& map)
{
    const int out = size + before + after;
    map.resize(out);
    if (type == Padding::PAD_REFLECT && (before >= size || after >= size))
        return false;
    for (int i = 0; i < out; i++)
    {
        int s = i - before;
        if (s < 0 || s >= size)
        {
            if (type == Padding::PAD_CONSTANT)
                s = -1;
            else if (type == Padding::PAD_REPLICATE)
                s = s < 0 ? 0 : size - 1;
            else
                s = s < 0 ? -s : 2 * (size - 1) - s;
        }
        map[i] = s;
    }
    return true;
}

int Padding::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob) || bottom_blob.elemsize != 4)
    {
        KITE_LOGE("Padding '%s': input must be a non-empty fp32 elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const int dims = bottom_blob.dims;
    // pads per (c, d, h, w)
    int before[4] = {0, 0, 0, 0};
    int after[4] = {0, 0, 0, 0};
    before[3] = left;
    after[3] = right;
    if (dims >= 2)
    {
        before[2] = top;
        after[2] = bottom;
    }
    if (dims == 3)
    {
        before[0] = front;
        after[0] = behind;
    }
    if (dims == 4)
    {
        before[1] = front;
        after[1] = behind;
    }
    int in[4];
    shape::to_cdhw(shape::dims_of(bottom_blob), in);
    std::vector<int> maps[4];
    int out[4];
    for (int a = 0; a < 4; a++)
    {
        out[a] = in[a] + before[a] + after[a];
        if (!axis_map(in[a], before[a], after[a], type, maps[a]))
        {
            KITE_LOGE("Padding '%s': reflect pads %d/%d must be smaller than the axis size %d", name.c_str(), before[a], after[a], in[a]);
            return -1;
        }
    }
    if (per_channel_pad_data_size > 0 && type == PAD_CONSTANT && per_channel_pad_data.w < out[0])
    {
        KITE_LOGE("Padding '%s': %d per-channel pad values for %d output channels", name.c_str(), per_channel_pad_data.w, out[0]);
        return -1;
    }

    if (dims == 1)
        top_blob.create(out[3], 4u, opt.blob_allocator);
    if (dims == 2)
        top_blob.create(out[3], out[2], 4u, opt.blob_allocator);
    if (dims == 3)
        top_blob.create(out[3], out[2], out[0], 4u, opt.blob_allocator);
    if (dims == 4)
        top_blob.create(out[3], out[2], out[1], out[0], 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const float* pcd = per_channel_pad_data_size > 0 ? (const float*)per_channel_pad_data.data : nullptr;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < out[0]; q++)
    {
        const float pad_value = pcd ? pcd[q] : value;
        const int sq = maps[0][q];
        for (int z = 0; z < out[1]; z++)
        {
            const int sz = maps[1][z];
            for (int y = 0; y < out[2]; y++)
            {
                const int sy = maps[2][y];
                float* outptr = (float*)shape::ptr_at(top_blob, q, z, y, 0);
                if (sq < 0 || sz < 0 || sy < 0)
                {
                    for (int x = 0; x < out[3]; x++)
                        outptr[x] = pad_value;
                    continue;
                }
                const float* ptr = (const float*)shape::ptr_at(bottom_blob, sq, sz, sy, 0);
                for (int x = 0; x < out[3]; x++)
                {
                    const int sx = maps[3][x];
                    outptr[x] = sx < 0 ? pad_value : ptr[sx];
                }
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Padding)

} // namespace kite
