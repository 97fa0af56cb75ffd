#include "innerproduct.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "log.h"

namespace kite {

InnerProduct::InnerProduct()
{
    one_blob_only = true;
    support_inplace = false;
}

int InnerProduct::load_param(const ParamDict& pd)
{
    num_output = pd.get(PARAM_NUM_OUTPUT, 0);
    bias_term = pd.get(PARAM_BIAS_TERM, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    int8_scale_term = pd.get(PARAM_INT8_SCALE_TERM, 0);
    activation_type = pd.get(PARAM_ACTIVATION_TYPE, 0);
    activation_params = pd.get(PARAM_ACTIVATION_PARAMS, Mat());

    const char* n = name.c_str();
    if (num_output <= 0)
    {
        KITE_LOGE("InnerProduct '%s': num_output %d must be > 0", n, num_output);
        return -1;
    }
    if (weight_data_size <= 0 || weight_data_size % num_output != 0)
    {
        KITE_LOGE("InnerProduct '%s': weight_data_size %d is not a positive multiple of num_output %d", n, weight_data_size, num_output);
        return -1;
    }
    if (int8_scale_term < 0)
    {
        KITE_LOGE("InnerProduct '%s': int8_scale_term %d must be >= 0", n, int8_scale_term);
        return -1;
    }
    if (activation_check(activation_type, "InnerProduct", n) != 0)
        return -1;
    support_int8_storage = int8_scale_term != 0;
    return 0;
}

int InnerProduct::load_model(const ModelBin& mb)
{
    weight_data = mb.load(weight_data_size, 0);
    if (weight_data.empty())
        return -100;
    if (weight_data.elemsize == 1u && !int8_scale_term)
    {
        KITE_LOGE("InnerProduct '%s': the model has int8 weights but no int8 scales (int8_scale_term is 0)", name.c_str());
        return -1;
    }
    if (bias_term)
    {
        bias_data = mb.load(num_output, 1);
        if (bias_data.empty())
            return -100;
    }
    if (int8_scale_term)
    {
        weight_data_int8_scales = mb.load(num_output, 1);
        bottom_blob_int8_scales = mb.load(1, 1);
        if (weight_data_int8_scales.empty() || bottom_blob_int8_scales.empty())
            return -100;
    }
    return 0;
}

int InnerProduct::create_pipeline(const Option& opt)
{
    if (opt.use_int8_inference && int8_scale_term && weight_data.elemsize == 4u)
    {
        Mat w8;
        int ret = quantize_weights_int8(weight_data, w8, weight_data_int8_scales, num_output);
        if (ret != 0)
            return ret;
        weight_data = w8;
    }
    return 0;
}

int InnerProduct::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int num_input = weight_data_size / num_output;
    const bool int8 = weight_data.elemsize == 1u;
    if (int8 && !opt.use_int8_inference)
    {
        KITE_LOGE("InnerProduct '%s': int8 weights need use_int8_inference", name.c_str());
        return -1;
    }
    if (bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 4
        || !(bottom_blob.elemsize == 4u || (int8 && bottom_blob.elemsize == 1u)))
    {
        KITE_LOGE("InnerProduct '%s': expects an fp32%s elempack-1 input, got dims=%d elemsize=%zu elempack=%d", name.c_str(),
                  int8 ? " or int8" : "", bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }

    // rows: a dims-2 input of w == num_input is h separate vectors, output
    // (num_output, h) even for h == 1 (what ncnn's x86/arm layers produce)
    int rows = 1;
    const bool row_mode = bottom_blob.dims == 2 && bottom_blob.w == num_input;
    if (row_mode)
        rows = bottom_blob.h;

    // contiguous input values
    Mat flat;
    if (flatten_blob(bottom_blob, flat, opt.workspace_allocator) != 0)
        return -100;
    if (flat.w != num_input * rows)
    {
        KITE_LOGE("InnerProduct '%s': input of %d values (dims=%d w=%d h=%d d=%d c=%d) does not match num_input %d", name.c_str(),
                  flat.w, bottom_blob.dims, bottom_blob.w, bottom_blob.h, bottom_blob.d, bottom_blob.c, num_input);
        return -1;
    }

    if (row_mode)
        top_blob.create(num_output, rows, 4u, opt.blob_allocator);
    else
        top_blob.create(num_output, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;

    const Activation act(activation_type, activation_params);
    const float* bias = bias_term ? (const float*)bias_data : nullptr;

    if (!int8)
    {
        const Mat weight = loaded_weights();
        if (weight.empty())
        {
            KITE_LOGE("InnerProduct '%s': no weights (out of memory rebuilding them from the packed copy?)", name.c_str());
            return -100;
        }
        const float* x = flat;
        const float* w = weight;
        float* y = top_blob;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int p = 0; p < num_output; p++)
        {
            for (int r = 0; r < rows; r++)
            {
                const float* xr = x + (size_t)num_input * r;
                const float* wp = w + (size_t)num_input * p;
                float sum = bias ? bias[p] : 0.f;
                for (int i = 0; i < num_input; i++)
                    sum += xr[i] * wp[i];
                y[(size_t)num_output * r + p] = act(sum);
            }
        }
        return 0;
    }

    // int8: quantize with the bottom scale, int32 accumulate, dequantize per output
    Mat xq = flat;
    if (flat.elemsize != 1u)
    {
        int ret = quantize_blob_int8(flat, xq, bottom_blob_int8_scales, 1, opt.workspace_allocator, opt.num_threads);
        if (ret != 0)
            return ret;
    }
    const signed char* x = xq;
    const signed char* w = weight_data;
    float* y = top_blob;
    const float bottom_scale = bottom_blob_int8_scales[0];
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int p = 0; p < num_output; p++)
    {
        const float scale_in = int8_dequant_scale(bottom_scale, weight_data_int8_scales[p]);
        for (int r = 0; r < rows; r++)
        {
            const signed char* xr = x + (size_t)num_input * r;
            const signed char* wp = w + (size_t)num_input * p;
            int sum = 0;
            for (int i = 0; i < num_input; i++)
                sum += (int)xr[i] * (int)wp[i];
            float v = sum * scale_in;
            if (bias)
                v += bias[p];
            y[(size_t)num_output * r + p] = act(v);
        }
    }
    return 0;
}

DEFINE_LAYER_CREATOR(InnerProduct)

float InnerProduct::int8_input_scale() const
{
    return uniform_int8_input_scale(int8_scale_term, weight_data, bottom_blob_int8_scales);
}

int InnerProduct::quantize_input(const Mat& bottom, Mat& top, const Option& opt) const
{
    return quantize_input_uniform(int8_input_scale(), bottom, top, opt);
}

} // namespace kite
