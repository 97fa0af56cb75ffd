#include "groupnorm.h"

#include "log.h"

#include <cmath>

namespace kite {

GroupNorm::GroupNorm()
{
    one_blob_only = true;
    support_inplace = true;
}

int GroupNorm::load_param(const ParamDict& pd)
{
    group = pd.get(PARAM_GROUP, 1);
    channels = pd.get(PARAM_CHANNELS, 0);
    eps = pd.get(PARAM_EPS, 0.001f);
    affine = pd.get(PARAM_AFFINE, 1);
    if (group <= 0 || channels <= 0 || channels % group != 0)
    {
        KITE_LOGE("GroupNorm '%s': channels %d must be a positive multiple of group %d", name.c_str(), channels, group);
        return -1;
    }
    return 0;
}

int GroupNorm::load_model(const ModelBin& mb)
{
    if (!affine)
        return 0;
    gamma_data = mb.load(channels, 1);
    if (gamma_data.empty())
        return -100;
    beta_data = mb.load(channels, 1);
    if (beta_data.empty())
        return -100;
    return 0;
}

int GroupNorm::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    Mat& m = bottom_top_blob;
    // channel count, values per channel and channel stride for each rank
    int c;
    size_t size, step;
    if (m.dims == 1)
        c = m.w, size = 1, step = 1;
    else if (m.dims == 2)
        c = m.h, size = m.w, step = m.w;
    else
        c = m.c, size = (size_t)m.w * m.h * m.d, step = m.cstep;
    if (c != channels)
    {
        KITE_LOGE("GroupNorm '%s': input has %d channels, the layer was made for %d", name.c_str(), c, channels);
        return -1;
    }
    const int channels_per_group = channels / group;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int g = 0; g < group; g++)
    {
        float* base = (float*)m.data + step * g * channels_per_group;
        float sum = 0.f;
        for (int q = 0; q < channels_per_group; q++)
        {
            const float* ptr = base + step * q;
            for (size_t i = 0; i < size; i++)
                sum += ptr[i];
        }
        const float mean = sum / (channels_per_group * size);
        float sqsum = 0.f;
        for (int q = 0; q < channels_per_group; q++)
        {
            const float* ptr = base + step * q;
            for (size_t i = 0; i < size; i++)
            {
                const float v = ptr[i] - mean;
                sqsum += v * v;
            }
        }
        const float var = sqsum / (channels_per_group * size);
        for (int q = 0; q < channels_per_group; q++)
        {
            float a, b;
            if (affine)
            {
                const float gamma = ((const float*)gamma_data)[g * channels_per_group + q];
                const float beta = ((const float*)beta_data)[g * channels_per_group + q];
                a = gamma / sqrtf(var + eps);
                b = -mean * a + beta;
            }
            else
            {
                a = 1.f / sqrtf(var + eps);
                b = -mean * a;
            }
            float* ptr = base + step * q;
            for (size_t i = 0; i < size; i++)
                ptr[i] = ptr[i] * a + b;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(GroupNorm)

} // namespace kite
