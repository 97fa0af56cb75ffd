#include "mvn.h"

#include "log.h"

#include <cmath>
#include <vector>

namespace kite {

MVN::MVN()
{
    one_blob_only = true;
    support_inplace = false;
}

int MVN::load_param(const ParamDict& pd)
{
    normalize_variance = pd.get(PARAM_NORMALIZE_VARIANCE, 0);
    across_channels = pd.get(PARAM_ACROSS_CHANNELS, 0);
    eps = pd.get(PARAM_EPS, 0.0001f);
    return 0;
}

int MVN::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.dims != 3)
    {
        KITE_LOGE("MVN '%s': expects a 3-D input, got dims %d", name.c_str(), bottom_blob.dims);
        return -1;
    }
    const int channels = bottom_blob.c;
    const size_t size = (size_t)bottom_blob.w * bottom_blob.h;
    top_blob.create(bottom_blob.w, bottom_blob.h, channels, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    std::vector<float> sum(channels);
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = bottom_blob.channel(q);
        float s = 0.f;
        for (size_t i = 0; i < size; i++)
            s += ptr[i];
        sum[q] = s;
    }
    std::vector<float> mean(channels);
    if (across_channels)
    {
        float s = 0.f;
        for (int q = 0; q < channels; q++)
            s += sum[q];
        for (int q = 0; q < channels; q++)
            mean[q] = s / (channels * size);
    }
    else
    {
        for (int q = 0; q < channels; q++)
            mean[q] = sum[q] / size;
    }

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = bottom_blob.channel(q);
        float* outptr = top_blob.channel(q);
        for (size_t i = 0; i < size; i++)
            outptr[i] = ptr[i] - mean[q];
    }
    if (!normalize_variance)
        return 0;

    std::vector<float> sqsum(channels);
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = top_blob.channel(q);
        float s = 0.f;
        for (size_t i = 0; i < size; i++)
            s += ptr[i] * ptr[i];
        sqsum[q] = s;
    }
    std::vector<float> norm(channels);
    if (across_channels)
    {
        float s = 0.f;
        for (int q = 0; q < channels; q++)
            s += sqsum[q];
        const float sqmean = s / (channels * size);
        for (int q = 0; q < channels; q++)
            norm[q] = sqrtf(sqmean) + eps;
    }
    else
    {
        for (int q = 0; q < channels; q++)
            norm[q] = sqrtf(sqsum[q] / size) + eps;
    }
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* ptr = top_blob.channel(q);
        for (size_t i = 0; i < size; i++)
            ptr[i] = ptr[i] / norm[q];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(MVN)

} // namespace kite
