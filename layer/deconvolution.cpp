#include "deconvolution.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "log.h"

namespace kite {

Deconvolution::Deconvolution()
{
    grouped = false;
    type_name = "Deconvolution";
    one_blob_only = true;
    support_inplace = false;
}

int Deconvolution::load_param(const ParamDict& pd)
{
    num_output = pd.get(PARAM_NUM_OUTPUT, 0);
    kernel_w = pd.get(PARAM_KERNEL_W, 0);
    kernel_h = pd.get(PARAM_KERNEL_H, kernel_w);
    dilation_w = pd.get(PARAM_DILATION_W, 1);
    dilation_h = pd.get(PARAM_DILATION_H, dilation_w);
    stride_w = pd.get(PARAM_STRIDE_W, 1);
    stride_h = pd.get(PARAM_STRIDE_H, stride_w);
    pad_left = pd.get(PARAM_PAD_LEFT, 0);
    pad_right = pd.get(PARAM_PAD_RIGHT, pad_left);
    pad_top = pd.get(PARAM_PAD_TOP, pad_left);
    pad_bottom = pd.get(PARAM_PAD_BOTTOM, pad_top);
    output_pad_right = pd.get(PARAM_OUTPUT_PAD_RIGHT, 0);
    output_pad_bottom = pd.get(PARAM_OUTPUT_PAD_BOTTOM, output_pad_right);
    output_w = pd.get(PARAM_OUTPUT_W, 0);
    output_h = pd.get(PARAM_OUTPUT_H, output_w);
    bias_term = pd.get(PARAM_BIAS_TERM, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    group = grouped ? pd.get(PARAM_GROUP, 1) : 1;
    activation_type = pd.get(PARAM_ACTIVATION_TYPE, 0);
    activation_params = pd.get(PARAM_ACTIVATION_PARAMS, Mat());
    dynamic_weight = pd.get(PARAM_DYNAMIC_WEIGHT, 0);

    const char* n = name.c_str();
    if (num_output <= 0 || group <= 0 || num_output % group != 0)
    {
        KITE_LOGE("%s '%s': num_output %d must be > 0 and divisible by group %d", type_name, n, num_output, group);
        return -1;
    }
    if (kernel_w <= 0 || kernel_h <= 0 || dilation_w <= 0 || dilation_h <= 0 || stride_w <= 0 || stride_h <= 0)
    {
        KITE_LOGE("%s '%s': kernel %dx%d, dilation %dx%d and stride %dx%d must all be > 0", type_name, n,
                  kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h);
        return -1;
    }
    const int pads[4] = {pad_left, pad_right, pad_top, pad_bottom};
    if (conv_check_pads(pads, 4, type_name, n) != 0)
        return -1;
    if (output_pad_right < 0 || output_pad_bottom < 0 || output_w < 0 || output_h < 0)
    {
        KITE_LOGE("%s '%s': output_pad and output size must be >= 0", type_name, n);
        return -1;
    }
    if (activation_check(activation_type, type_name, n) != 0)
        return -1;
    if (dynamic_weight)
    {
        KITE_LOGE("%s '%s': dynamic_weight is not supported", type_name, n);
        return -1;
    }
    const long long per_input = conv_checked_product(num_output, kernel_w, kernel_h);
    if (per_input <= 0 || weight_data_size <= 0 || weight_data_size % per_input != 0)
    {
        KITE_LOGE("%s '%s': weight_data_size %d is not a positive multiple of num_output*kernel_w*kernel_h = %lld", type_name,
                  n, weight_data_size, per_input);
        return -1;
    }
    return 0;
}

int Deconvolution::load_model(const ModelBin& mb)
{
    weight_data = mb.load(weight_data_size, 0);
    if (weight_data.empty())
        return -100;
    if (weight_data.elemsize != 4u)
    {
        KITE_LOGE("%s '%s': int8 weights are not supported", type_name, name.c_str());
        return -1;
    }
    if (bias_term)
    {
        bias_data = mb.load(num_output, 1);
        if (bias_data.empty())
            return -100;
    }
    return 0;
}

int Deconvolution::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (bottom_blob.elemsize != 4u || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 3)
    {
        KITE_LOGE("%s '%s': expects an fp32 elempack-1 input of dims 1..3, got dims=%d elemsize=%zu elempack=%d", type_name,
                  name.c_str(), bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }
    const int inch_g = weight_data_size / (num_output * kernel_w * kernel_h);
    const ConvView in = conv_view_spatial(bottom_blob);
    if (in.c != inch_g * group)
    {
        KITE_LOGE("%s '%s': input has %d channels, the weights expect %d", type_name, name.c_str(), in.c, inch_g * group);
        return -1;
    }

    ConvGeometry g;
    int outw, outh;
    if (output_geometry(in.w, in.h, g, &outw, &outh) != 0)
        return -1;
    top_blob.create(outw, outh, num_output, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    const Activation act(activation_type, activation_params);
    return run_fp32(in, conv_view_spatial(top_blob), g, act, opt);
}

int Deconvolution::output_geometry(int in_w, int in_h, ConvGeometry& g, int* outw, int* outh) const
{
    const int full_w = (in_w - 1) * stride_w + conv_kernel_extent(kernel_w, dilation_w) + output_pad_right;
    const int full_h = (in_h - 1) * stride_h + conv_kernel_extent(kernel_h, dilation_h) + output_pad_bottom;
    const bool explicit_pad = pad_left > 0 || pad_right > 0 || pad_top > 0 || pad_bottom > 0;
    const bool use_output_size = output_w > 0 && output_h > 0;
    if (!explicit_pad && use_output_size && pad_left != -233 && pad_left != -234)
    {
        KITE_LOGE("%s '%s': output_w/output_h apply only with SAME pads (-233/-234), as in ncnn", type_name, name.c_str());
        return -1;
    }
    int cut_w, cut_h;
    if (deconv_axis_cut(full_w, pad_left, pad_right, output_w, explicit_pad, use_output_size, &cut_w, outw) != 0
        || deconv_axis_cut(full_h, pad_top, pad_bottom, output_h, explicit_pad, use_output_size, &cut_h, outh) != 0)
    {
        KITE_LOGE("%s '%s': full output %dx%d cannot be cut to the requested size (pads %d %d %d %d, output %dx%d)", type_name,
                  name.c_str(), full_w, full_h, pad_left, pad_right, pad_top, pad_bottom, output_w, output_h);
        return -1;
    }

    g.kernel_w = kernel_w;
    g.kernel_h = kernel_h;
    g.dilation_w = dilation_w;
    g.dilation_h = dilation_h;
    g.stride_w = stride_w;
    g.stride_h = stride_h;
    g.pad_left = cut_w;
    g.pad_top = cut_h;
    return 0;
}

int Deconvolution::run_fp32(const ConvView& in, const ConvView& out, const ConvGeometry& g, const Activation& act,
                            const Option& opt) const
{
    const Mat weight = loaded_weights();
    if (weight.empty())
    {
        KITE_LOGE("%s '%s': no weights (out of memory rebuilding them from the packed copy?)", type_name, name.c_str());
        return -100;
    }
    deconv_forward_fp32(in, out, weight, bias_term ? (const float*)bias_data : nullptr, group, g, act, opt.num_threads);
    return 0;
}

DEFINE_LAYER_CREATOR(Deconvolution)

} // namespace kite
