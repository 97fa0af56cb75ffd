#include "prelu.h"

#include "log.h"

namespace kite {

PReLU::PReLU()
{
    one_blob_only = true;
    support_inplace = true;
}

int PReLU::load_param(const ParamDict& pd)
{
    num_slope = pd.get(PARAM_NUM_SLOPE, 0);
    if (num_slope < 1)
    {
        KITE_LOGE("PReLU '%s': num_slope must be >= 1, got %d", name.c_str(), num_slope);
        return -1;
    }
    return 0;
}

int PReLU::load_model(const ModelBin& mb)
{
    slope_data = mb.load(num_slope, 1);
    if (slope_data.empty())
        return -100;
    if (slope_data.w != num_slope || slope_data.elemsize != 4u)
    {
        KITE_LOGE("PReLU '%s': slope buffer should hold %d fp32 values", name.c_str(), num_slope);
        return -1;
    }
    return 0;
}

int PReLU::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    Mat& m = bottom_top_blob;
    if (m.elempack != 1 || m.elemsize != 4u)
    {
        KITE_LOGE("PReLU '%s': expects fp32 elempack 1, got elemsize %d elempack %d", name.c_str(), (int)m.elemsize, m.elempack);
        return -1;
    }

    // the axis that carries one slope each: w (dims 1), h (dims 2), c (dims 3, 4)
    int groups;
    size_t group_size;
    size_t group_stride;
    if (m.dims == 1)
    {
        groups = m.w;
        group_size = 1;
        group_stride = 1;
    }
    else if (m.dims == 2)
    {
        groups = m.h;
        group_size = (size_t)m.w;
        group_stride = (size_t)m.w;
    }
    else
    {
        groups = m.c;
        group_size = (size_t)m.w * m.h * m.d;
        group_stride = m.cstep;
    }

    if (num_slope > 1 && num_slope != groups)
    {
        KITE_LOGE("PReLU '%s': %d slopes for an input of dims %d with %d %s", name.c_str(), num_slope, m.dims, groups,
                  m.dims == 1 ? "elements" : m.dims == 2 ? "rows" : "channels");
        return -1;
    }

    const float* slopes = slope_data;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int g = 0; g < groups; g++)
    {
        float* ptr = (float*)m.data + group_stride * g;
        const float slope = num_slope > 1 ? slopes[g] : slopes[0];
        for (size_t i = 0; i < group_size; i++)
        {
            if (ptr[i] < 0.f)
                ptr[i] *= slope;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(PReLU)

} // namespace kite
