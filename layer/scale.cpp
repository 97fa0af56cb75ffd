#include "scale.h"

#include "batchnorm.h"
#include "log.h"

namespace kite {

Scale::Scale()
{
    one_blob_only = true;
    support_inplace = true;
}

int Scale::load_param(const ParamDict& pd)
{
    scale_data_size = pd.get(PARAM_SCALE_DATA_SIZE, 0);
    bias_term = pd.get(PARAM_BIAS_TERM, 0);
    if (scale_data_size == -233)
    {
        one_blob_only = false;
        return 0;
    }
    if (scale_data_size <= 0)
    {
        KITE_LOGE("Scale '%s': scale_data_size %d must be positive (or -233 for a scale input)", name.c_str(), scale_data_size);
        return -1;
    }
    return 0;
}

int Scale::load_model(const ModelBin& mb)
{
    if (scale_data_size == -233)
        return 0;
    scale_data = mb.load(scale_data_size, 1);
    if (scale_data.empty())
        return -100;
    if (bias_term)
    {
        bias_data = mb.load(scale_data_size, 1);
        if (bias_data.empty())
            return -100;
    }
    return 0;
}

int Scale::apply(Mat& blob, const Mat& scale, const Mat& bias, const Option& opt) const
{
    int c;
    size_t size, step;
    per_channel_layout(blob, c, size, step);
    const size_t nscale = (size_t)scale.w * scale.h * scale.d * scale.c;
    if (nscale != (size_t)c || (scale.dims >= 3 && scale.c > 1 && scale.w * scale.h * scale.d != 1))
    {
        KITE_LOGE("Scale '%s': input has %d channels but %zu scale values", name.c_str(), c, nscale);
        return -1;
    }
    // a 3-D scale blob of (1, 1, c) keeps each value at the start of a channel
    const size_t sstep = scale.dims >= 3 ? scale.cstep : 1;
    const float* s = scale;
    const float* b = bias.empty() ? nullptr : (const float*)bias;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < c; q++)
    {
        float* ptr = (float*)blob.data + step * q;
        const float sv = s[sstep * q];
        if (b)
        {
            const float bv = b[q];
            for (size_t i = 0; i < size; i++)
                ptr[i] = ptr[i] * sv + bv;
        }
        else
        {
            for (size_t i = 0; i < size; i++)
                ptr[i] *= sv;
        }
    }
    return 0;
}

int Scale::forward_inplace(std::vector<Mat>& bottom_top_blobs, const Option& opt) const
{
    if (scale_data_size != -233)
    {
        if (bottom_top_blobs.empty())
            return -1;
        return forward_inplace(bottom_top_blobs[0], opt);
    }
    if (bottom_top_blobs.size() != 2)
    {
        KITE_LOGE("Scale '%s': with scale_data_size -233 expects 2 inputs (blob, scale), got %d", name.c_str(), (int)bottom_top_blobs.size());
        return -1;
    }
    return apply(bottom_top_blobs[0], bottom_top_blobs[1], Mat(), opt);
}

int Scale::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    if (scale_data_size == -233)
    {
        KITE_LOGE("Scale '%s': needs a second input with the scales", name.c_str());
        return -1;
    }
    return apply(bottom_top_blob, scale_data, bias_term ? bias_data : Mat(), opt);
}

DEFINE_LAYER_CREATOR(Scale)

} // namespace kite
