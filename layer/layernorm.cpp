#include "layernorm.h"

#include "log.h"

#include <cmath>

namespace kite {

static void layernorm_span(float* ptr, const float* gamma, const float* beta, float eps, int size)
{
    float sum = 0.f;
    for (int i = 0; i < size; i++)
        sum += ptr[i];
    const float mean = sum / size;
    float sqsum = 0.f;
    for (int i = 0; i < size; i++)
    {
        const float v = ptr[i] - mean;
        sqsum += v * v;
    }
    const float var = sqsum / size;
    const float a = 1.f / sqrtf(var + eps);
    const float b = -mean * a;
    if (gamma)
    {
        for (int i = 0; i < size; i++)
            ptr[i] = (ptr[i] * a + b) * gamma[i] + beta[i];
    }
    else
    {
        for (int i = 0; i < size; i++)
            ptr[i] = ptr[i] * a + b;
    }
}

LayerNorm::LayerNorm()
{
    one_blob_only = true;
    support_inplace = true;
}

int LayerNorm::load_param(const ParamDict& pd)
{
    affine_size = pd.get(PARAM_AFFINE_SIZE, 0);
    eps = pd.get(PARAM_EPS, 0.001f);
    affine = pd.get(PARAM_AFFINE, 1);
    if (affine_size < 0 || (affine && affine_size == 0))
    {
        KITE_LOGE("LayerNorm '%s': affine_size %d must be positive", name.c_str(), affine_size);
        return -1;
    }
    return 0;
}

int LayerNorm::load_model(const ModelBin& mb)
{
    if (!affine)
        return 0;
    gamma_data = mb.load(affine_size, 1);
    if (gamma_data.empty())
        return -100;
    beta_data = mb.load(affine_size, 1);
    if (beta_data.empty())
        return -100;
    return 0;
}

// the span normalised together: a row, a (w, h) plane or a whole (w, h, d)
// channel; -1 (logged) when affine_size fits none
int LayerNorm::norm_span(const Mat& m) const
{
    const int w = m.w;
    const int h = m.dims >= 2 ? m.h : 1;
    const int d = m.dims == 4 ? m.d : 1;
    if (affine_size == w || (!affine && affine_size == 0 && m.dims <= 2))
        return w;
    if (m.dims >= 3 && (affine_size == w * h || (!affine && affine_size == 0 && m.dims == 3)))
        return w * h;
    if (m.dims == 4 && affine_size == w * h * d)
        return w * h * d;
    KITE_LOGE("LayerNorm '%s': affine_size %d matches neither w (%d) nor w*h (%d) of the input (dims %d)",
              name.c_str(), affine_size, w, w * h, m.dims);
    return -1;
}

int LayerNorm::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    Mat& m = bottom_top_blob;
    const int w = m.w;
    const int h = m.dims >= 2 ? m.h : 1;
    const int d = m.dims == 4 ? m.d : 1;
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t cstep = m.dims >= 3 ? m.cstep : (size_t)w * h;

    const int span = norm_span(m);
    if (span < 0)
        return -1;
    const size_t per_channel = (size_t)w * h * d;
    const int spans_per_channel = (int)(per_channel / span);
    const float* gamma = affine ? (const float*)gamma_data : nullptr;
    const float* beta = affine ? (const float*)beta_data : nullptr;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        float* ptr = (float*)m.data + cstep * q;
        for (int s = 0; s < spans_per_channel; s++)
            layernorm_span(ptr + (size_t)s * span, gamma, beta, eps, span);
    }
    return 0;
}

DEFINE_LAYER_CREATOR(LayerNorm)

} // namespace kite
