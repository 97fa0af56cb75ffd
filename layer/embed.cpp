#include "embed.h"

#include "log.h"

namespace kite {

Embed::Embed()
{
    one_blob_only = true;
    support_inplace = false;
}

int Embed::load_param(const ParamDict& pd)
{
    num_output = pd.get(PARAM_NUM_OUTPUT, 0);
    input_dim = pd.get(PARAM_INPUT_DIM, 0);
    bias_term = pd.get(PARAM_BIAS_TERM, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    int8_scale_term = pd.get(PARAM_INT8_SCALE_TERM, 0);
    const char* n = name.c_str();
    if (num_output <= 0 || input_dim <= 0)
    {
        KITE_LOGE("Embed '%s': num_output %d and input_dim %d must be positive", n, num_output, input_dim);
        return -1;
    }
    if ((long long)num_output * input_dim != weight_data_size)
    {
        KITE_LOGE("Embed '%s': weight_data_size %d != num_output %d * input_dim %d", n, weight_data_size, num_output, input_dim);
        return -1;
    }
    if (int8_scale_term)
    {
        KITE_LOGE("Embed '%s': int8 embedding tables are not supported by the reference", n);
        return -1;
    }
    return 0;
}

int Embed::load_model(const ModelBin& mb)
{
    weight_data = mb.load(weight_data_size, 0);
    if (weight_data.empty())
        return -100;
    if (bias_term)
    {
        bias_data = mb.load(num_output, 1);
        if (bias_data.empty())
            return -100;
    }
    return 0;
}

int Embed::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.dims > 2 || bottom_blob.elemsize != 4)
    {
        KITE_LOGE("Embed '%s': expects a 1-D or 2-D blob of int32 indices, got dims %d elemsize %d", name.c_str(),
                  bottom_blob.dims, (int)bottom_blob.elemsize);
        return -1;
    }
    const int words = bottom_blob.w * bottom_blob.h;
    top_blob.create(num_output, words, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    const int* index = bottom_blob;
    const float* table = weight_data;
    const float* bias = bias_term ? (const float*)bias_data : nullptr;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < words; q++)
    {
        int word = index[q];
        if (word < 0)
            word = 0;
        if (word >= input_dim)
            word = input_dim - 1;
        const float* row = table + (size_t)word * num_output;
        float* out = top_blob.row(q);
        for (int p = 0; p < num_output; p++)
            out[p] = bias ? row[p] + bias[p] : row[p];
    }
    return 0;
}

DEFINE_LAYER_CREATOR(Embed)

} // namespace kite
