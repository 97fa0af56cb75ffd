#include "concat.h"

#include "common/shape_util.h"
#include "log.h"

namespace kite {

Concat::Concat()
{
    one_blob_only = false;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Concat::load_param(const ParamDict& pd)
{
    axis = pd.get(PARAM_AXIS, 0);
    return 0;
}

int Concat::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (bottom_blobs.empty() || top_blobs.size() != 1)
    {
        KITE_LOGE("Concat '%s': expects >= 1 input and 1 output, got %d and %d", name.c_str(), (int)bottom_blobs.size(), (int)top_blobs.size());
        return -1;
    }
    const Mat& first = bottom_blobs[0];
    const int dims = first.dims;
    const int positive_axis = shape::normalize_axis(axis, dims);
    if (positive_axis < 0)
    {
        KITE_LOGE("Concat '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, dims);
        return -1;
    }
    const shape::Dims d0 = shape::dims_of(first);
    shape::Dims outd = d0;
    outd.s[positive_axis] = 0;
    for (size_t i = 0; i < bottom_blobs.size(); i++)
    {
        const Mat& b = bottom_blobs[i];
        char buf0[64], buf1[64];
        if (!shape::plain_blob(b) || b.dims != dims || b.elemsize != first.elemsize)
        {
            KITE_LOGE("Concat '%s': input %d %s does not match input 0 %s (dims, elemsize, elempack 1)", name.c_str(), (int)i,
                      shape::dims_string(b, buf0, sizeof(buf0)), shape::dims_string(first, buf1, sizeof(buf1)));
            return -1;
        }
        const shape::Dims di = shape::dims_of(b);
        for (int a = 0; a < dims; a++)
        {
            if (a != positive_axis && di.s[a] != d0.s[a])
            {
                KITE_LOGE("Concat '%s': input %d %s and input 0 %s differ on axis %d (concat axis %d)", name.c_str(), (int)i,
                          shape::dims_string(b, buf0, sizeof(buf0)), shape::dims_string(first, buf1, sizeof(buf1)), a, positive_axis);
                return -1;
            }
        }
        outd.s[positive_axis] += di.s[positive_axis];
    }

    Mat& top_blob = top_blobs[0];
    shape::create_dims(top_blob, outd, first.elemsize, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const int ax = shape::cdhw_axis(dims, positive_axis);
    int offset = 0;
    for (size_t i = 0; i < bottom_blobs.size(); i++)
    {
        const Mat& b = bottom_blobs[i];
        int ext[4];
        shape::to_cdhw(shape::dims_of(b), ext);
        int sstart[4] = {0, 0, 0, 0};
        int dstart[4] = {0, 0, 0, 0};
        dstart[ax] = offset;
        shape::copy_box(b, sstart, top_blob, dstart, ext, opt.num_threads);
        offset += ext[ax];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Concat)

} // namespace kite
