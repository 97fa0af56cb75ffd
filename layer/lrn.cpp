#include "lrn.h"

#include "log.h"

#include <cmath>

namespace kite {

LRN::LRN()
{
    one_blob_only = true;
    support_inplace = true;
}

int LRN::load_param(const ParamDict& pd)
{
    region_type = pd.get(PARAM_REGION_TYPE, 0);
    local_size = pd.get(PARAM_LOCAL_SIZE, 5);
    alpha = pd.get(PARAM_ALPHA, 1.f);
    beta = pd.get(PARAM_BETA, 0.75f);
    bias = pd.get(PARAM_BIAS, 1.f);
    if (region_type != ACROSS_CHANNELS && region_type != WITHIN_CHANNEL)
    {
        KITE_LOGE("LRN '%s': region_type %d is not 0 (across) or 1 (within)", name.c_str(), region_type);
        return -1;
    }
    if (local_size <= 0)
    {
        KITE_LOGE("LRN '%s': local_size %d must be positive", name.c_str(), local_size);
        return -1;
    }
    return 0;
}

int LRN::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    Mat& m = bottom_top_blob;
    if (m.dims != 3)
    {
        KITE_LOGE("LRN '%s': expects a 3-D input, got dims %d", name.c_str(), m.dims);
        return -1;
    }
    const int w = m.w, h = m.h, channels = m.c;
    const size_t size = (size_t)w * h;

    Mat square(w, h, channels, 4u, opt.workspace_allocator);
    if (square.empty())
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = m.channel(q);
        float* sptr = square.channel(q);
        for (size_t i = 0; i < size; i++)
            sptr[i] = ptr[i] * ptr[i];
    }

    if (region_type == ACROSS_CHANNELS)
    {
        const float alpha_div_size = alpha / local_size;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            float* ptr = m.channel(q);
            for (size_t i = 0; i < size; i++)
            {
                float ss = 0.f;
                for (int p = q - local_size / 2; p <= q + local_size / 2; p++)
                {
                    if (p < 0 || p >= channels)
                        continue;
                    ss += ((const float*)square.channel(p).data)[i];
                }
                ptr[i] = ptr[i] * powf(bias + alpha_div_size * ss, -beta);
            }
        }
    }
    else
    {
        const int pad = local_size / 2;
        const float alpha_div_size = alpha / (local_size * local_size);
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            float* ptr = m.channel(q);
            const float* sptr = square.channel(q);
            for (int i = 0; i < h; i++)
            {
                for (int j = 0; j < w; j++)
                {
                    float ss = 0.f;
                    for (int y = i - pad; y < i - pad + local_size; y++)
                    {
                        if (y < 0 || y >= h)
                            continue;
                        for (int x = j - pad; x < j - pad + local_size; x++)
                        {
                            if (x < 0 || x >= w)
                                continue;
                            ss += sptr[y * w + x];
                        }
                    }
                    ptr[i * w + j] = ptr[i * w + j] * powf(bias + alpha_div_size * ss, -beta);
                }
            }
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(LRN)

} // namespace kite
