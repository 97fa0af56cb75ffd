#include "statisticspooling.h"

#include "log.h"

#include <cmath>

namespace kite {

StatisticsPooling::StatisticsPooling()
{
    one_blob_only = true;
    support_inplace = false;
}

int StatisticsPooling::load_param(const ParamDict& pd)
{
    include_stddev = pd.get(PARAM_INCLUDE_STDDEV, 0);
    return 0;
}

int StatisticsPooling::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.dims != 3)
    {
        KITE_LOGE("StatisticsPooling '%s': expects a 3-D input, got dims %d", name.c_str(), bottom_blob.dims);
        return -1;
    }
    const int channels = bottom_blob.c;
    const size_t size = (size_t)bottom_blob.w * bottom_blob.h;
    top_blob.create(include_stddev ? channels * 2 : channels, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    float* out = top_blob;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float* ptr = bottom_blob.channel(q);
        float sum = 0.f;
        for (size_t i = 0; i < size; i++)
            sum += ptr[i];
        const float mean = sum / size;
        out[q] = mean;
        if (include_stddev)
        {
            float sqsum = 0.f;
            for (size_t i = 0; i < size; i++)
            {
                const float v = ptr[i] - mean;
                sqsum += v * v;
            }
            const float variance = sqsum / size;
            out[channels + q] = variance < 0.00001f ? sqrtf(0.00001f) : sqrtf(variance);
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(StatisticsPooling)

} // namespace kite
