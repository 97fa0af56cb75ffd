#include "convolution.h"

#include "common/activation.h"
#include "common/conv_int8_planes.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "log.h"

#include <vector>

namespace kite {

Convolution::Convolution()
{
    one_blob_only = true;
    support_inplace = false;
}

int Convolution::load_param(const ParamDict& pd)
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
    pad_value = pd.get(PARAM_PAD_VALUE, 0.f);
    bias_term = pd.get(PARAM_BIAS_TERM, 0);
    weight_data_size = pd.get(PARAM_WEIGHT_DATA_SIZE, 0);
    int8_scale_term = pd.get(PARAM_INT8_SCALE_TERM, 0);
    activation_type = pd.get(PARAM_ACTIVATION_TYPE, 0);
    activation_params = pd.get(PARAM_ACTIVATION_PARAMS, Mat());
    dynamic_weight = pd.get(PARAM_DYNAMIC_WEIGHT, 0);

    const char* n = name.c_str();
    if (num_output <= 0)
    {
        KITE_LOGE("Convolution '%s': num_output %d must be > 0", n, num_output);
        return -1;
    }
    if (num_output > (1 << 24) || kernel_w > 4096 || kernel_h > 4096)
    {
        KITE_LOGE("Convolution '%s': num_output %d / kernel %dx%d out of range", n, num_output, kernel_w, kernel_h);
        return -1;
    }
    if (kernel_w <= 0 || kernel_h <= 0 || dilation_w <= 0 || dilation_h <= 0 || stride_w <= 0 || stride_h <= 0)
    {
        KITE_LOGE("Convolution '%s': kernel %dx%d, dilation %dx%d and stride %dx%d must all be > 0", n,
                  kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h);
        return -1;
    }
    const int pads[4] = {pad_left, pad_right, pad_top, pad_bottom};
    if (conv_check_pads(pads, 4, "Convolution", n) != 0)
        return -1;
    if (activation_check(activation_type, "Convolution", n) != 0)
        return -1;
    if (int8_scale_term < 0)
    {
        KITE_LOGE("Convolution '%s': int8_scale_term %d must be >= 0", n, int8_scale_term);
        return -1;
    }
    if (dynamic_weight)
    {
        if (int8_scale_term)
        {
            KITE_LOGE("Convolution '%s': dynamic_weight with int8_scale_term is not supported", n);
            return -1;
        }
        one_blob_only = false;
    }
    else
    {
        const long long per_input = conv_checked_product(num_output, kernel_w, kernel_h);
        if (per_input <= 0 || weight_data_size <= 0 || weight_data_size % per_input != 0)
        {
            KITE_LOGE("Convolution '%s': weight_data_size %d is not a positive multiple of num_output*kernel_w*kernel_h = %lld",
                      n, weight_data_size, per_input);
            return -1;
        }
    }
    support_int8_storage = int8_scale_term != 0;
    return 0;
}

int Convolution::load_model(const ModelBin& mb)
{
    if (dynamic_weight)
        return 0;

    weight_data = mb.load(weight_data_size, 0);
    if (weight_data.empty())
        return -100;
    if (weight_data.elemsize == 1u && !int8_scale_term)
    {
        KITE_LOGE("Convolution '%s': the model has int8 weights but no int8 scales (int8_scale_term is 0)", name.c_str());
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
    if (int8_scale_term > 100)
    {
        top_blob_int8_scales = mb.load(1, 1);
        if (top_blob_int8_scales.empty())
            return -100;
    }
    return 0;
}

int Convolution::create_pipeline(const Option& opt)
{
    if (dynamic_weight)
        return 0;

    // quantize fp32 weights per output channel, as ncnn does at load time
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

int Convolution::forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    if (dynamic_weight)
    {
        KITE_LOGE("Convolution '%s': dynamic_weight needs the weight as a second input", name.c_str());
        return -1;
    }
    if (weight_data.elemsize == 1u)
    {
        if (!opt.use_int8_inference)
        {
            KITE_LOGE("Convolution '%s': int8 weights need use_int8_inference", name.c_str());
            return -1;
        }
        return forward_int8(bottom_blob, top_blob, opt);
    }
    const int num_input = weight_data_size / (num_output * kernel_w * kernel_h);
    return forward_fp32(bottom_blob, top_blob, weight_data, bias_term ? (const float*)bias_data : nullptr,
                        kernel_w, kernel_h, num_output, num_input, opt);
}

int Convolution::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (!dynamic_weight)
    {
        if (bottom_blobs.size() != 1 || top_blobs.size() != 1)
        {
            KITE_LOGE("Convolution '%s': expects 1 input and 1 output", name.c_str());
            return -1;
        }
        return forward(bottom_blobs[0], top_blobs[0], opt);
    }
    const size_t need = bias_term ? 3 : 2;
    if (bottom_blobs.size() != need || top_blobs.size() != 1)
    {
        KITE_LOGE("Convolution '%s': dynamic_weight expects %zu inputs (blob, weight%s), got %zu", name.c_str(), need,
                  bias_term ? ", bias" : "", bottom_blobs.size());
        return -1;
    }
    const Mat& wblob = bottom_blobs[1];
    if (wblob.empty() || wblob.elemsize != 4u || wblob.elempack != 1)
    {
        KITE_LOGE("Convolution '%s': dynamic weight must be a non-empty fp32 blob", name.c_str());
        return -1;
    }
    const int kw = wblob.w;
    const int kh = wblob.dims >= 2 ? wblob.h : 1;
    const int outch = wblob.dims >= 3 ? wblob.c : 1;
    Mat wflat;
    if (flatten_blob(wblob, wflat, opt.workspace_allocator) != 0)
        return -100;
    const int num_input = wflat.w / (kw * kh * outch);
    if (num_input * kw * kh * outch != wflat.w || num_input <= 0)
    {
        KITE_LOGE("Convolution '%s': dynamic weight %d values is not kw*kh*num_output (%d*%d*%d) times inch", name.c_str(),
                  wflat.w, kw, kh, outch);
        return -1;
    }
    Mat bflat;
    if (bias_term)
    {
        if (flatten_blob(bottom_blobs[2], bflat, opt.workspace_allocator) != 0)
            return -100;
        if (bflat.w != outch || bflat.elemsize != 4u)
        {
            KITE_LOGE("Convolution '%s': dynamic bias has %d values, expected %d", name.c_str(), bflat.w, outch);
            return -1;
        }
    }
    return forward_fp32(bottom_blobs[0], top_blobs[0], wflat, bias_term ? (const float*)bflat : nullptr, kw, kh, outch, num_input, opt);
}

int Convolution::forward_fp32(const Mat& bottom_blob, Mat& top_blob, const float* weight, const float* bias,
                              int kw, int kh, int outch, int num_input, const Option& opt) const
{
    const Activation act(activation_type, activation_params);
    if (bottom_blob.elemsize != 4u || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 3)
    {
        KITE_LOGE("Convolution '%s': expects an fp32 elempack-1 input of dims 1..3, got dims=%d elemsize=%zu elempack=%d",
                  name.c_str(), bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }

    ConvGeometry g;
    g.kernel_w = kw;
    g.kernel_h = kh;
    g.dilation_w = dilation_w;
    g.dilation_h = dilation_h;
    g.stride_w = stride_w;
    g.stride_h = stride_h;

    // a flat vector with a 1x1 kernel is an inner product (as ncnn)
    if (bottom_blob.dims == 1 && kw == 1 && kh == 1 && bottom_blob.w == num_input)
    {
        top_blob.create(outch, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        ConvView in(bottom_blob.data, 1, 1, 1, num_input, 1);
        ConvView out(top_blob.data, 1, 1, 1, outch, 1);
        conv_forward_fp32(in, out, weight, bias, 1, g, pad_value, act, opt.num_threads);
        return 0;
    }

    const ConvView in = conv_view_spatial(bottom_blob);
    if (in.c != num_input)
    {
        KITE_LOGE("Convolution '%s': input has %d channels, the weights expect %d", name.c_str(), in.c, num_input);
        return -1;
    }
    const int pads_in[4] = {pad_left, pad_right, pad_top, pad_bottom};
    const int sizes[2] = {in.w, in.h};
    const int extents[2] = {conv_kernel_extent(kw, dilation_w), conv_kernel_extent(kh, dilation_h)};
    const int strides[2] = {stride_w, stride_h};
    int pads[4];
    conv_resolve_pads(pads_in, 2, sizes, extents, strides, pads);
    const int outw_span = in.w + pads[0] + pads[1] - extents[0];
    const int outh_span = in.h + pads[2] + pads[3] - extents[1];
    if (outw_span < 0 || outh_span < 0)
    {
        KITE_LOGE("Convolution '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d", name.c_str(),
                  in.w, in.h, in.w + pads[0] + pads[1], in.h + pads[2] + pads[3], extents[0], extents[1]);
        return -1;
    }
    const int outw = outw_span / stride_w + 1;
    const int outh = outh_span / stride_h + 1;
    g.pad_left = pads[0];
    g.pad_top = pads[2];

    top_blob.create(outw, outh, outch, 4u, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    conv_forward_fp32(in, conv_view_spatial(top_blob), weight, bias, 1, g, pad_value, act, opt.num_threads);
    return 0;
}

int Convolution::forward_int8(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int maxk = kernel_w * kernel_h;
    const int num_input = weight_data_size / (num_output * maxk);
    if (bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 3 || (bottom_blob.elemsize != 4u && bottom_blob.elemsize != 1u))
    {
        KITE_LOGE("Convolution '%s': expects an fp32 or int8 elempack-1 input of dims 1..3, got dims=%d elemsize=%zu elempack=%d",
                  name.c_str(), bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }

    Mat bottom_int8 = bottom_blob;
    if (bottom_blob.elemsize != 1u)
    {
        int ret = quantize_blob_int8(bottom_blob, bottom_int8, bottom_blob_int8_scales, 1, opt.workspace_allocator, opt.num_threads);
        if (ret != 0)
            return ret;
    }

    const bool requant = int8_scale_term > 100;
    std::vector<float> scale_in(num_output), scale_out(num_output);
    for (int p = 0; p < num_output; p++)
    {
        scale_in[p] = int8_dequant_scale(bottom_blob_int8_scales[0], weight_data_int8_scales[p]);
        scale_out[p] = requant ? top_blob_int8_scales[0] : 1.f;
    }
    const Activation act(activation_type, activation_params);
    const size_t out_elemsize = requant ? 1u : 4u;
    // ncnn's x86 int8 convolution hands the int32 sums to its Requantize /
    // Dequantize kernels: fma(sum, scale_in, bias) in one rounding (on an FMA
    // CPU), activation, then for int8 outputs * scale_out rounded as its SIMD
    // float2int8 does. Mirror that so the int8 values agree exactly.
    const int numerics = CONV_INT8_FMA_BIAS | CONV_INT8_ROUND_ADDHALF;
    const float* bias = bias_term ? (const float*)bias_data : nullptr;

    ConvGeometry g;
    g.kernel_w = kernel_w;
    g.kernel_h = kernel_h;
    g.dilation_w = dilation_w;
    g.dilation_h = dilation_h;
    g.stride_w = stride_w;
    g.stride_h = stride_h;

    if (bottom_int8.dims == 1 && maxk == 1 && bottom_int8.w == num_input)
    {
        top_blob.create(num_output, out_elemsize, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        ConvView in(bottom_int8.data, 1, 1, 1, num_input, 1);
        ConvView out(top_blob.data, 1, 1, 1, num_output, 1);
        conv_forward_int8(in, out, weight_data, bias, scale_in.data(), requant ? scale_out.data() : nullptr, 1, g,
                          pad_value_int8(pad_value), act, opt.num_threads, numerics);
        return 0;
    }

    const ConvView in = conv_view_spatial(bottom_int8);
    if (in.c != num_input)
    {
        KITE_LOGE("Convolution '%s': input has %d channels, the weights expect %d", name.c_str(), in.c, num_input);
        return -1;
    }
    const int pads_in[4] = {pad_left, pad_right, pad_top, pad_bottom};
    const int sizes[2] = {in.w, in.h};
    const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
    const int strides[2] = {stride_w, stride_h};
    int pads[4];
    conv_resolve_pads(pads_in, 2, sizes, extents, strides, pads);
    const int outw_span = in.w + pads[0] + pads[1] - extents[0];
    const int outh_span = in.h + pads[2] + pads[3] - extents[1];
    if (outw_span < 0 || outh_span < 0)
    {
        KITE_LOGE("Convolution '%s': input %dx%d is smaller than the kernel extent %dx%d after padding", name.c_str(),
                  in.w, in.h, extents[0], extents[1]);
        return -1;
    }
    g.pad_left = pads[0];
    g.pad_top = pads[2];
    top_blob.create(outw_span / stride_w + 1, outh_span / stride_h + 1, num_output, out_elemsize, opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    ConvInt8Job job;
    job.in = in;
    job.out = conv_view_spatial(top_blob);
    job.weight = weight_data;
    job.bias = bias;
    job.scale_in = scale_in.data();
    job.scale_out = requant ? scale_out.data() : nullptr;
    job.group = 1;
    job.g = g;
    job.pad_value = pad_value_int8(pad_value);
    job.act = act;
    job.numerics = numerics;
    run_int8(job, opt.num_threads);
    return 0;
}

void Convolution::run_int8(const ConvInt8Job& j, int num_threads) const
{
    // the same sums and epilogue as conv_forward_int8, in a loop order that
    // vectorises (common/conv_int8_planes.h)
    if (conv_forward_int8_planes(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.g, j.pad_value, j.act, num_threads, j.numerics))
        return;
    conv_forward_int8(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, 1, j.g, j.pad_value, j.act, num_threads, j.numerics);
}

DEFINE_LAYER_CREATOR(Convolution)

} // namespace kite
