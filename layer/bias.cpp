#include "bias.h"

#include "batchnorm.h"
#include "log.h"

namespace kite {

Bias::Bias()
{
    one_blob_only = true;
    support_inplace = true;
}

int Bias::load_param(const ParamDict& pd)
{
    bias_data_size = pd.get(PARAM_BIAS_DATA_SIZE, 0);
    if (bias_data_size <= 0)
    {
        KITE_LOGE("Bias '%s': bias_data_size %d must be positive", name.c_str(), bias_data_size);
        return -1;
    }
    return 0;
}

int Bias::load_model(const ModelBin& mb)
{
    bias_data = mb.load(bias_data_size, 1);
    return bias_data.empty() ? -100 : 0;
}

int Bias::forward_inplace(Mat& bottom_top_blob, const Option& opt) const
{
    int c;
    size_t size, step;
    per_channel_layout(bottom_top_blob, c, size, step);
    if (c != bias_data_size)
    {
        KITE_LOGE("Bias '%s': input has %d channels, bias has %d values", name.c_str(), c, bias_data_size);
        return -1;
    }
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < c; q++)
    {
        float* ptr = (float*)bottom_top_blob.data + step * q;
        const float b = bias_data[q];
        for (size_t i = 0; i < size; i++)
            ptr[i] += b;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Bias)

} // namespace kite
