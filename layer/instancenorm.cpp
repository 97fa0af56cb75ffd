#include "instancenorm.h"

#include "log.h"

#include <cmath>

namespace kite {

InstanceNorm::InstanceNorm()
{
    one_blob_only = true;
    support_inplace = true;
}

int InstanceNorm::load_param(const ParamDict& pd)
{
    channels = pd.get(PARAM_CHANNELS, 0);
    eps = pd.get(PARAM_EPS, 0.001f);
    affine = pd.get(PARAM_AFFINE, 1);
    if (channels < 0 || (affine && channels == 0))
    {
        KITE_LOGE("InstanceNorm '%s': channels %d must be positive", name.c_str(), channels);
        return -1;
    }
    return 0;
}

int InstanceNorm::load_model(const ModelBin& mb)
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

int InstanceNorm::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    Mat& m = bottom_top_blob;
    if (m.dims < 3)
    {
        KITE_LOGE("InstanceNorm '%s': expects a 3-D or 4-D input, got dims %d", name.c_str(), m.dims);
        return -1;
    }
    if (affine && m.c != channels)
    {
        KITE_LOGE("InstanceNorm '%s': input has %d channels, the layer was made for %d", name.c_str(), m.c, channels);
        return -1;
    }
    const size_t size = (size_t)m.w * m.h * m.d;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < m.c; q++)
    {
        float* ptr = (float*)m.data + m.cstep * q;
        float sum = 0.f;
        for (size_t i = 0; i < size; i++)
            sum += ptr[i];
        const float mean = sum / size;
        float sqsum = 0.f;
        for (size_t i = 0; i < size; i++)
        {
            const float v = ptr[i] - mean;
            sqsum += v * v;
        }
        const float var = sqsum / size;
        float a, b;
        if (affine)
        {
            const float gamma = ((const float*)gamma_data)[q];
            const float beta = ((const float*)beta_data)[q];
            a = gamma / sqrtf(var + eps);
            b = -mean * a + beta;
        }
        else
        {
            a = 1.f / sqrtf(var + eps);
            b = -mean * a;
        }
        for (size_t i = 0; i < size; i++)
            ptr[i] = ptr[i] * a + b;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(InstanceNorm)

} // namespace kite
