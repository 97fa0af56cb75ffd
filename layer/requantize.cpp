#include "requantize.h"

#include "common/activation.h"
#include "common/int8.h"
#include "common/quant_util.h"
#include "log.h"

namespace kite {

Requantize::Requantize()
{
    one_blob_only = true;
    support_inplace = false;
    support_int8_storage = true;
}

int Requantize::load_param(const ParamDict& pd)
{
    scale_in_data_size = pd.get(PARAM_SCALE_IN_DATA_SIZE, 1);
    scale_out_data_size = pd.get(PARAM_SCALE_OUT_DATA_SIZE, 1);
    bias_data_size = pd.get(PARAM_BIAS_DATA_SIZE, 0);
    activation_type = pd.get(PARAM_ACTIVATION_TYPE, 0);
    activation_params = pd.get(PARAM_ACTIVATION_PARAMS, Mat());
    if (scale_in_data_size <= 0 || scale_out_data_size <= 0 || bias_data_size < 0)
    {
        KITE_LOGE("Requantize '%s': scale sizes (%d, %d) must be > 0 and bias_data_size %d >= 0", name.c_str(), scale_in_data_size,
                  scale_out_data_size, bias_data_size);
        return -1;
    }
    return activation_check(activation_type, "Requantize", name.c_str());
}

int Requantize::load_model(const ModelBin& mb)
{
    scale_in_data = mb.load(scale_in_data_size, 1);
    if (scale_in_data.empty())
        return -100;
    scale_out_data = mb.load(scale_out_data_size, 1);
    if (scale_out_data.empty())
        return -100;
    if (bias_data_size)
    {
        bias_data = mb.load(bias_data_size, 1);
        if (bias_data.empty())
            return -100;
    }
    return 0;
}

int Requantize::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.elemsize != 4u || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 4)
    {
        KITE_LOGE("Requantize '%s': expects an int32 elempack-1 input, got dims=%d elemsize=%zu elempack=%d", name.c_str(),
                  bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }
    const QuantLayout lay = quant_layout(bottom_blob);
    const char* n = name.c_str();
    if (!quant_check_size(scale_in_data_size, lay.groups, "Requantize", n, "scale_in_data_size")
        || !quant_check_size(scale_out_data_size, lay.groups, "Requantize", n, "scale_out_data_size")
        || (bias_data_size && !quant_check_size(bias_data_size, lay.groups, "Requantize", n, "bias_data_size")))
        return -1;
    if (quant_create_like(bottom_blob, top_blob, 1u, opt.blob_allocator) != 0)
        return -100;
    const Activation act(activation_type, activation_params);
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int gi = 0; gi < lay.groups; gi++)
    {
        const float scale_in = scale_in_data[scale_in_data_size == 1 || lay.groups == 1 ? 0 : gi];
        const float scale_out = scale_out_data[scale_out_data_size == 1 || lay.groups == 1 ? 0 : gi];
        const float bias = bias_data_size == 0 ? 0.f : bias_data[bias_data_size == 1 || lay.groups == 1 ? 0 : gi];
        const int* src = quant_group_ptr<const int>(bottom_blob, lay, gi);
        signed char* dst = quant_group_ptr<signed char>(top_blob, lay, gi);
        for (size_t i = 0; i < lay.size; i++)
            dst[i] = float2int8(act(src[i] * scale_in + bias) * scale_out);
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Requantize)

} // namespace kite
