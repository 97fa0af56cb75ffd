#include "slice.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

Slice::Slice()
{
    one_blob_only = false;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Slice::load_param(const ParamDict& pd)
{
    slices = pd.get(PARAM_SLICES, Mat());
    axis = pd.get(PARAM_AXIS, 0);
    indices = pd.get(PARAM_INDICES, Mat());
    if (slices.empty() && indices.empty())
    {
        KITE_LOGE("Slice '%s': neither slices (0) nor indices (2) given", name.c_str());
        return -1;
    }
    return 0;
}

int Slice::resolve_slices(int size, int n, std::vector<int>& starts, std::vector<int>& lens) const
{
    starts.assign(n, 0);
    lens.assign(n, 0);
    if (!indices.empty())
    {
        if (indices.w != n - 1)
        {
            KITE_LOGE("Slice '%s': %d indices for %d outputs (need outputs - 1)", name.c_str(), indices.w, n);
            return -1;
        }
        const int* ip = indices;
        int prev = 0;
        for (int i = 0; i < n; i++)
        {
            int end = size;
            if (i < n - 1)
            {
                end = ip[i] < 0 ? ip[i] + size : ip[i];
                if (end > size)
                    end = size;
            }
            if (end <= prev)
            {
                KITE_LOGE("Slice '%s': index %d gives an empty or reversed slice on an axis of %d", name.c_str(), i < n - 1 ? ip[i] : size, size);
                return -1;
            }
            starts[i] = prev;
            lens[i] = end - prev;
            prev = end;
        }
    }
    else
    {
        if (slices.w < n)
        {
            KITE_LOGE("Slice '%s': %d slices for %d outputs", name.c_str(), slices.w, n);
            return -1;
        }
        const int* sp = slices;
        int q = 0;
        for (int i = 0; i < n; i++)
        {
            int s = sp[i];
            if (s == -233)
                s = (size - q) / (n - i);
            if (s <= 0 || q + s > size)
            {
                KITE_LOGE("Slice '%s': slice %d (%d) does not fit an axis of %d (offset %d)", name.c_str(), i, sp[i], size, q);
                return -1;
            }
            starts[i] = q;
            lens[i] = s;
            q += s;
        }
        if (q != size)
        {
            KITE_LOGE("Slice '%s': the slices cover %d of an axis of %d", name.c_str(), q, size);
            return -1;
        }
    }
    return 0;
}

int Slice::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.size() != 1 || top_blobs.empty())
    {
        KITE_LOGE("Slice '%s': expects 1 input and >= 1 output, got %d and %d", name.c_str(), (int)bottom_blobs.size(), (int)top_blobs.size());
        return -1;
    }
    const Mat& bottom_blob = bottom_blobs[0];
    if (!shape::plain_blob(bottom_blob))
    {
        KITE_LOGE("Slice '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    const int dims = bottom_blob.dims;
    const int positive_axis = shape::normalize_axis(axis, dims);
    if (positive_axis < 0)
    {
        KITE_LOGE("Slice '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, dims);
        return -1;
    }
    const shape::Dims ind = shape::dims_of(bottom_blob);
    const int size = ind.s[positive_axis];
    const int n = (int)top_blobs.size();

    std::vector<int> starts, lens;
    if (resolve_slices(size, n, starts, lens) != 0)
        return -1;

    const int ax = shape::cdhw_axis(dims, positive_axis);
    for (int i = 0; i < n; i++)
    {
        shape::Dims outd = ind;
        outd.s[positive_axis] = lens[i];
        Mat& top_blob = top_blobs[i];
        shape::create_dims(top_blob, outd, bottom_blob.elemsize, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        int ext[4];
        shape::to_cdhw(outd, ext);
        int sstart[4] = {0, 0, 0, 0};
        int dstart[4] = {0, 0, 0, 0};
        sstart[ax] = starts[i];
        shape::copy_box(bottom_blob, sstart, top_blob, dstart, ext, opt.num_threads);
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Slice)

} // namespace kite
