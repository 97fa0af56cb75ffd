#include "dequantize.h"

#include "common/quant_util.h"
#include "log.h"

namespace kite {

Dequantize::Dequantize()
{
    one_blob_only = true;
    support_inplace = false;
    support_int8_storage = true;
}

int Dequantize::load_param(const ParamDict& pd)
{
    scale_data_size = pd.get(PARAM_SCALE_DATA_SIZE, 1);
    bias_data_size = pd.get(PARAM_BIAS_DATA_SIZE, 0);
    if (scale_data_size <= 0 || bias_data_size < 0)
    {
        KITE_LOGE("Dequantize '%s': scale_data_size %d must be > 0 and bias_data_size %d >= 0", name.c_str(), scale_data_size,
                  bias_data_size);
        return -1;
    }
    return 0;
}

int Dequantize::load_model(const ModelBin& mb)
{
    scale_data = mb.load(scale_data_size, 1);
    if (scale_data.empty())
        return -100;
    if (bias_data_size)
    {
        bias_data = mb.load(bias_data_size, 1);
        if (bias_data.empty())
            return -100;
    }
    return 0;
}

int Dequantize::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.elemsize != 4u || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 4)
    {
        KITE_LOGE("Dequantize '%s': expects an int32 elempack-1 input, got dims=%d elemsize=%zu elempack=%d", name.c_str(),
                  bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }
    const QuantLayout lay = quant_layout(bottom_blob);
    if (!quant_check_size(scale_data_size, lay.groups, "Dequantize", name.c_str(), "scale_data_size"))
        return -1;
    if (bias_data_size && !quant_check_size(bias_data_size, lay.groups, "Dequantize", name.c_str(), "bias_data_size"))
        return -1;
    if (quant_create_like(bottom_blob, top_blob, 4u, opt.blob_allocator) != 0)
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int gi = 0; gi < lay.groups; gi++)
    {
        const float scale = scale_data[scale_data_size == 1 || lay.groups == 1 ? 0 : gi];
        const float bias = bias_data_size == 0 ? 0.f : bias_data[bias_data_size == 1 || lay.groups == 1 ? 0 : gi];
        const int* src = quant_group_ptr<const int>(bottom_blob, lay, gi);
        float* dst = quant_group_ptr<float>(top_blob, lay, gi);
        for (size_t i = 0; i < lay.size; i++)
            dst[i] = src[i] * scale + bias;
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Dequantize)

} // namespace kite
