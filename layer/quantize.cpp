#include "quantize.h"

#include "common/int8.h"
#include "common/quant_util.h"
#include "log.h"

namespace kite {

Quantize::Quantize()
{
    one_blob_only = true;
    support_inplace = false;
}

int Quantize::load_param(const ParamDict& pd)
{
    scale_data_size = pd.get(PARAM_SCALE_DATA_SIZE, 1);
    if (scale_data_size <= 0)
    {
        KITE_LOGE("Quantize '%s': scale_data_size %d must be > 0", name.c_str(), scale_data_size);
        return -1;
    }
    return 0;
}

int Quantize::load_model(const ModelBin& mb)
{
    scale_data = mb.load(scale_data_size, 1);
    if (scale_data.empty())
        return -100;
    return 0;
}

int Quantize::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.elemsize != 4u || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 4)
    {
        KITE_LOGE("Quantize '%s': expects an fp32 elempack-1 input, got dims=%d elemsize=%zu elempack=%d", name.c_str(),
                  bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }
    QuantLayout lay = quant_layout(bottom_blob);
    if (!quant_check_size(scale_data_size, lay.groups, "Quantize", name.c_str(), "scale_data_size"))
        return -1;
    if (quant_create_like(bottom_blob, top_blob, 1u, opt.blob_allocator) != 0)
        return -100;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int gi = 0; gi < lay.groups; gi++)
    {
        const float scale = scale_data[scale_data_size == 1 || lay.groups == 1 ? 0 : gi];
        const float* src = quant_group_ptr<const float>(bottom_blob, lay, gi);
        signed char* dst = quant_group_ptr<signed char>(top_blob, lay, gi);
        for (size_t i = 0; i < lay.size; i++)
            dst[i] = float2int8(src[i] * scale);
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Quantize)

} // namespace kite
