#include "memorydata.h"

#include "log.h"

namespace kite {

MemoryData::MemoryData()
{
    one_blob_only = false;
    support_inplace = false;
}

int MemoryData::load_param(const ParamDict& pd)
{
    w = pd.get(PARAM_W, 0);
    h = pd.get(PARAM_H, 0);
    d = pd.get(PARAM_D, 0);
    c = pd.get(PARAM_C, 0);
    load_type = pd.get(PARAM_LOAD_TYPE, 1);
    if (w < 0 || h < 0 || d < 0 || c < 0)
    {
        KITE_LOGE("MemoryData '%s': negative size %d x %d x %d x %d", name.c_str(), w, h, d, c);
        return -1;
    }
    if (load_type != 0 && load_type != 1)
    {
        KITE_LOGE("MemoryData '%s': load_type %d (0 tagged, 1 raw fp32)", name.c_str(), load_type);
        return -1;
    }
    return 0;
}

int MemoryData::load_model(const ModelBin& mb)
{
    const int _w = w > 0 ? w : 1;
    const int _h = h > 0 ? h : 1;
    const int _d = d > 0 ? d : 1;
    const int _c = c > 0 ? c : 1;
    if (d > 0)
        data = mb.load(_w, _h, _d, _c, load_type);
    else if (c > 0)
        data = mb.load(_w, _h, _c, load_type);
    else if (h > 0)
        data = mb.load(_w, _h, load_type);
    else
        data = mb.load(_w, load_type);
    if (data.empty())
        return -100;
    return 0;
}

int MemoryData::forward(const std::vector<Mat>& /*bottom_blobs*/, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (top_blobs.size() != 1)
    {
        KITE_LOGE("MemoryData '%s': expects 1 output, got %d", name.c_str(), (int)top_blobs.size());
        return -1;
    }
    top_blobs[0] = data.clone(opt.blob_allocator);
    if (top_blobs[0].empty())
        return -100;
    return 0;
}

DEFINE_LAYER_CREATOR(MemoryData)

} // namespace kite
