#include "argmax.h"

#include "common/shape_util.h"
#include "log.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace kite {

ArgMax::ArgMax()
{
    one_blob_only = true;
    support_inplace = false;
}

int ArgMax::load_param(const ParamDict& pd)
{
    out_max_val = pd.get(PARAM_OUT_MAX_VAL, 0);
    topk = pd.get(PARAM_TOPK, 1);
    if (topk <= 0)
    {
        KITE_LOGE("ArgMax '%s': topk must be positive, got %d", name.c_str(), topk);
        return -1;
    }
    return 0;
}

int ArgMax::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (!shape::plain_blob(bottom_blob) || bottom_blob.elemsize != 4)
    {
        KITE_LOGE("ArgMax '%s': input must be a non-empty fp32 elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    int ext[4];
    shape::to_cdhw(shape::dims_of(bottom_blob), ext);
    const size_t size = (size_t)ext[0] * ext[1] * ext[2] * ext[3];
    if ((size_t)topk > size)
    {
        KITE_LOGE("ArgMax '%s': topk %d exceeds the %zu elements", name.c_str(), topk, size);
        return -1;
    }
    std::vector<std::pair<float, int> > vec;
    vec.reserve(size);
    for (int q = 0; q < ext[0]; q++)
    {
        const float* ptr = (const float*)shape::ptr_at(bottom_blob, q, 0, 0, 0);
        const size_t plane = (size_t)ext[1] * ext[2] * ext[3];
        for (size_t i = 0; i < plane; i++)
            vec.push_back(std::make_pair(ptr[i], (int)vec.size()));
    }
    std::partial_sort(vec.begin(), vec.begin() + topk, vec.end(), std::greater<std::pair<float, int> >());

    top_blob.create(topk, out_max_val ? 2 : 1, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    float* outptr = top_blob;
    if (out_max_val)
    {
        float* idxptr = top_blob.row(1);
        for (int i = 0; i < topk; i++)
        {
            outptr[i] = vec[i].first;
            idxptr[i] = (float)vec[i].second;
        }
    }
    else
    {
        for (int i = 0; i < topk; i++)
            outptr[i] = (float)vec[i].second;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(ArgMax)

} // namespace kite
