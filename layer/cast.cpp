#include "cast.h"

#include "common/shape_util.h"
#include "log.h"

#include <cmath>

namespace kite {

Cast::Cast()
{
    one_blob_only = true;
    support_inplace = false;
    support_fp16_storage = true;
    support_bf16_storage = true;
    support_int8_storage = true;
}

int Cast::load_param(const ParamDict& pd)
{
    type_from = pd.get(PARAM_TYPE_FROM, 0);
    type_to = pd.get(PARAM_TYPE_TO, 0);
    if (type_from < TYPE_FP32 || type_from > TYPE_BF16 || type_to < TYPE_FP32 || type_to > TYPE_BF16)
    {
        KITE_LOGE("Cast '%s': types %d -> %d (1 fp32, 2 fp16, 3 int8, 4 bf16)", name.c_str(), type_from, type_to);
        return -1;
    }
    return 0;
}

static size_t type_size(int t)
{
    return t == Cast::TYPE_FP32 ? 4u : t == Cast::TYPE_INT8 ? 1u : 2u;
}

static signed char float2int8(float v)
{
    int i = (int)roundf(v);
    if (i > 127)
        i = 127;
    if (i < -127)
        i = -127;
    return (signed char)i;
}

int Cast::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.empty() || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 4)
    {
        KITE_LOGE("Cast '%s': input must be a non-empty elempack 1 blob of dims 1..4", name.c_str());
        return -1;
    }
    if (bottom_blob.elemsize != type_size(type_from))
    {
        KITE_LOGE("Cast '%s': input elemsize %zu does not match type_from %d", name.c_str(), bottom_blob.elemsize, type_from);
        return -1;
    }
    if (type_from == type_to)
    {
        top_blob = bottom_blob;
        return 0;
    }
    // to fp32 first
    Mat f;
    if (type_from == TYPE_FP32)
        f = bottom_blob;
    else
    {
        Option ow = opt;
        ow.blob_allocator = type_to == TYPE_FP32 ? opt.blob_allocator : opt.workspace_allocator;
        if (type_from == TYPE_FP16)
            cast_float16_to_float32(bottom_blob, f, ow);
        else if (type_from == TYPE_BF16)
            cast_bfloat16_to_float32(bottom_blob, f, ow);
        else
            cast_int8_to_float32(bottom_blob, f, ow);
        if (f.empty())
            return -100;
    }
    if (type_to == TYPE_FP32)
    {
        top_blob = f;
        return 0;
    }
    if (type_to == TYPE_FP16)
        cast_float32_to_float16(f, top_blob, opt);
    else if (type_to == TYPE_BF16)
        cast_float32_to_bfloat16(f, top_blob, opt);
    else
    {
        shape::create_dims(top_blob, shape::dims_of(f), 1u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const int channels = f.dims >= 3 ? f.c : 1;
        const size_t plane = (size_t)f.w * f.h * f.d;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const float* ptr = (const float*)f.data + f.cstep * q;
            signed char* outptr = (signed char*)top_blob.data + top_blob.cstep * q;
            for (size_t i = 0; i < plane; i++)
                outptr[i] = float2int8(ptr[i]);
        }
        return 0;
    }
    if (top_blob.empty())
        return -100;
    return 0;
}

DEFINE_LAYER_CREATOR(Cast)

} // namespace kite
