#include "memory_limit.h"

#include "layer.h"
#include "log.h"

#include <cstdint>

namespace kite {

size_t declared_bytes(long long w, long long h, long long d, long long c)
{
    const long long dims[4] = {w, h, d, c};
    size_t bytes = 4; // fp32
    for (long long v : dims)
    {
        if (v <= 1)
            continue;
        if ((unsigned long long)v > SIZE_MAX / bytes)
            return SIZE_MAX;
        bytes *= (size_t)v;
    }
    return bytes;
}

static std::string bytes_text(size_t b)
{
    if (b == SIZE_MAX)
        return "more bytes than size_t counts";
    return std::to_string(b) + " bytes or more";
}

int check_declared_shapes(const std::string& type, const std::string& name, const ParamDict& pd,
                          const std::vector<Mat>& top_shapes, size_t limit, const char* where)
{
    if (limit == 0)
        return 0;
    if (type == "Input")
    {
        const size_t b = declared_bytes(pd.get(0, 0), pd.get(1, 0), pd.get(11, 0), pd.get(2, 0));
        if (b > limit)
        {
            KITE_LOGE("%s: layer '%s' (Input) declares a blob of w %d h %d d %d c %d: %s, over the memory limit of %zu bytes "
                      "(Option::memory_limit)",
                      where, name.c_str(), pd.get(0, 0), pd.get(1, 0), pd.get(11, 0), pd.get(2, 0), bytes_text(b).c_str(), limit);
            return -100;
        }
    }
    for (size_t t = 0; t < top_shapes.size(); t++)
    {
        const Mat& s = top_shapes[t];
        if (s.dims == 0)
            continue;
        const size_t b = declared_bytes(s.w, s.dims >= 2 ? s.h : 1, s.dims == 4 ? s.d : 1, s.dims >= 3 ? s.c : 1);
        if (b > limit)
        {
            KITE_LOGE("%s: layer '%s' (%s) declares output %d of shape w %d h %d d %d c %d: %s, over the memory limit of %zu "
                      "bytes (Option::memory_limit)",
                      where, name.c_str(), type.c_str(), (int)t, s.w, s.h, s.d, s.c, bytes_text(b).c_str(), limit);
            return -100;
        }
    }
    return 0;
}

ModelBinWithLimit::ModelBinWithLimit(const ModelBin& _inner, size_t _limit)
    : inner(_inner), limit(_limit), used(0), layer(nullptr)
{
}

bool ModelBinWithLimit::admit(long long w, long long h, long long d, long long c) const
{
    if (limit == 0 || w <= 0 || h <= 0 || d <= 0 || c <= 0)
        return true; // bad sizes: the inner ModelBin reports them
    const size_t b = declared_bytes(w, h, d, c);
    if (b > limit || used > limit - b)
    {
        KITE_LOGE("layer '%s' (%s): its weights of %lld values need %zu bytes; with the %zu bytes of the layers before "
                  "it that is over the memory limit of %zu (Option::memory_limit)",
                  layer ? layer->name.c_str() : "?", layer ? layer->type.c_str() : "?", w * h * d * c, b, used, limit);
        return false;
    }
    used += b;
    return true;
}

Mat ModelBinWithLimit::load(int w, int type) const
{
    return admit(w, 1, 1, 1) ? inner.load(w, type) : Mat();
}

Mat ModelBinWithLimit::load(int w, int h, int type) const
{
    return admit(w, h, 1, 1) ? inner.load(w, h, type) : Mat();
}

Mat ModelBinWithLimit::load(int w, int h, int c, int type) const
{
    return admit(w, h, 1, c) ? inner.load(w, h, c, type) : Mat();
}

Mat ModelBinWithLimit::load(int w, int h, int d, int c, int type) const
{
    return admit(w, h, d, c) ? inner.load(w, h, d, c, type) : Mat();
}

void ModelBinWithLimit::begin_layer(const Layer* l, const ParamDict& pd) const
{
    layer = l;
    inner.begin_layer(l, pd);
}

} // namespace kite
