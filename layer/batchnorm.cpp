#include "batchnorm.h"

#include "log.h"

#include <cmath>

namespace kite {

void per_channel_layout(const Mat& m, int& channels, size_t& size, size_t& step)
{
    if (m.dims == 1)
        channels = m.w, size = 1, step = 1;
    else if (m.dims == 2)
        channels = m.h, size = m.w, step = m.w;
    else
        channels = m.c, size = (size_t)m.w * m.h * m.d, step = m.cstep;
}

BatchNorm::BatchNorm()
{
    one_blob_only = true;
    support_inplace = true;
}

int BatchNorm::load_param(const ParamDict& pd)
{
    channels = pd.get(PARAM_CHANNELS, 0);
    eps = pd.get(PARAM_EPS, 0.f);
    if (channels <= 0)
    {
        KITE_LOGE("BatchNorm '%s': channels %d must be positive", name.c_str(), channels);
        return -1;
    }
    return 0;
}

int BatchNorm::load_model(const ModelBin& mb)
{
    slope_data = mb.load(channels, 1);
    if (slope_data.empty())
        return -100;
    mean_data = mb.load(channels, 1);
    if (mean_data.empty())
        return -100;
    var_data = mb.load(channels, 1);
    if (var_data.empty())
        return -100;
    bias_data = mb.load(channels, 1);
    if (bias_data.empty())
        return -100;

    a_data.create(channels);
    b_data.create(channels);
    if (a_data.empty() || b_data.empty())
        return -100;
    for (int i = 0; i < channels; i++)
    {
        const float sqrt_var = sqrtf(var_data[i] + eps);
        a_data[i] = bias_data[i] - slope_data[i] * mean_data[i] / sqrt_var;
        b_data[i] = slope_data[i] / sqrt_var;
    }
    return 0;
}

int BatchNorm::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    int c;
    size_t size, step;
    per_channel_layout(bottom_top_blob, c, size, step);
    if (c != channels)
    {
        KITE_LOGE("BatchNorm '%s': input has %d channels, the layer was made for %d", name.c_str(), c, channels);
        return -1;
    }
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < c; q++)
    {
        float* ptr = (float*)bottom_top_blob.data + step * q;
        const float a = a_data[q];
        const float b = b_data[q];
        // one rounding, as ncnn's x86 build computes it (fused multiply-add
        // on every packing): an int8 layer after a BatchNorm quantizes its
        // output, so a 1-ulp difference here can move a value to the next
        // int8 step (squeezenet_ssd_int8's fire5_mbox_loc). std::fma also
        // gives every build the same bits, with or without FMA contraction.
        for (size_t i = 0; i < size; i++)
            ptr[i] = std::fma(b, ptr[i], a);
    }
    return 0;
}

DEFINE_LAYER_CREATOR(BatchNorm)

} // namespace kite
