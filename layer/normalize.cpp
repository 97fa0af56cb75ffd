#include "normalize.h"

#include "log.h"

#include <cmath>
#include <vector>

namespace kite {

Normalize::Normalize()
{
    one_blob_only = true;
    support_inplace = true;
}

int Normalize::load_param(const ParamDict& pd)
{
    across_spatial = pd.get(PARAM_ACROSS_SPATIAL, 0);
    across_channel = pd.get(PARAM_ACROSS_CHANNEL, 1);
    channel_shared = pd.get(PARAM_CHANNEL_SHARED, 0);
    eps = pd.get(PARAM_EPS, 0.0001f);
    scale_data_size = pd.get(PARAM_SCALE_DATA_SIZE, 0);
    eps_mode = pd.get(PARAM_EPS_MODE, 0);
    if (scale_data_size <= 0)
    {
        KITE_LOGE("Normalize '%s': scale_data_size %d must be positive", name.c_str(), scale_data_size);
        return -1;
    }
    if (eps_mode < 0 || eps_mode > 2)
    {
        KITE_LOGE("Normalize '%s': eps_mode %d is not 0..2", name.c_str(), eps_mode);
        return -1;
    }
    return 0;
}

int Normalize::load_model(const ModelBin& mb)
{
    scale_data = mb.load(scale_data_size, 1);
    return scale_data.empty() ? -100 : 0;
}

float Normalize::inv_norm(float ssum) const
{
    if (eps_mode == 0)
        return 1.f / sqrtf(ssum + eps);
    if (eps_mode == 1)
    {
        const float n = sqrtf(ssum);
        return 1.f / (n > eps ? n : eps);
    }
    return 1.f / sqrtf(ssum > eps ? ssum : eps);
}

int Normalize::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    Mat& m = bottom_top_blob;
    if (m.dims != 3)
    {
        KITE_LOGE("Normalize '%s': expects a 3-D input, got dims %d", name.c_str(), m.dims);
        return -1;
    }
    const int channels = m.c;
    const size_t size = (size_t)m.w * m.h;
    if (!channel_shared && scale_data_size != channels && scale_data_size != 1)
    {
        KITE_LOGE("Normalize '%s': %d scale values for %d channels", name.c_str(), scale_data_size, channels);
        return -1;
    }
    const float* scale = scale_data;
    // one scale value for everything when shared (or only one was given)
    auto scale_of = [&](int q) { return (channel_shared || scale_data_size == 1) ? scale[0] : scale[q]; };

    if (!across_spatial && !across_channel)
        return 0; // ncnn leaves the blob unchanged

    if (across_spatial && across_channel)
    {
        std::vector<float> sq(channels);
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const float* ptr = m.channel(q);
            float s = 0.f;
            for (size_t i = 0; i < size; i++)
                s += ptr[i] * ptr[i];
            sq[q] = s;
        }
        float ssum = 0.f;
        for (int q = 0; q < channels; q++)
            ssum += sq[q];
        const float a = inv_norm(ssum);
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            float* ptr = m.channel(q);
            const float s = a * scale_of(q);
            for (size_t i = 0; i < size; i++)
                ptr[i] = ptr[i] * s;
        }
    }
    else if (across_channel)
    {
        // every position over the channels
        std::vector<float> inv(size, 0.f);
        for (int q = 0; q < channels; q++)
        {
            const float* ptr = m.channel(q);
            for (size_t i = 0; i < size; i++)
                inv[i] += ptr[i] * ptr[i];
        }
        for (size_t i = 0; i < size; i++)
            inv[i] = inv_norm(inv[i]);
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            float* ptr = m.channel(q);
            const float s = scale_of(q);
            for (size_t i = 0; i < size; i++)
                ptr[i] = ptr[i] * inv[i] * s;
        }
    }
    else
    {
        // across_spatial only: every channel over its plane
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            float* ptr = m.channel(q);
            float ssum = 0.f;
            for (size_t i = 0; i < size; i++)
                ssum += ptr[i] * ptr[i];
            const float s = inv_norm(ssum) * scale_of(q);
            for (size_t i = 0; i < size; i++)
                ptr[i] = ptr[i] * s;
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Normalize)

} // namespace kite
