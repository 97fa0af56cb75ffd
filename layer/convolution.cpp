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
    group = 1;
    grouped = false;
    type_name = "Convolution";
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
    group = grouped ? pd.get(PARAM_GROUP, 1) : 1;
    int8_scale_term = pd.get(PARAM_INT8_SCALE_TERM, 0);
    activation_type = pd.get(PARAM_ACTIVATION_TYPE, 0);
    activation_params = pd.get(PARAM_ACTIVATION_PARAMS, Mat());
    dynamic_weight = pd.get(PARAM_DYNAMIC_WEIGHT, 0);

    const char* n = name.c_str();
    if (num_output <= 0 || group <= 0 || num_output % group != 0)
    {
        KITE_LOGE("%s '%s': num_output %d must be > 0 and divisible by group %d", type_name, n, num_output, group);
        return -1;
    }
    if (num_output > (1 << 24) || kernel_w > 4096 || kernel_h > 4096)
    {
        KITE_LOGE("%s '%s': num_output %d / kernel %dx%d out of range", type_name, n, num_output, kernel_w, kernel_h);
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
    if (activation_check(activation_type, type_name, n) != 0)
        return -1;
    // grouped: 1/101 one weight scale per group, 2/102 one for all
    if (grouped && int8_scale_term != 0 && int8_scale_term != 1 && int8_scale_term != 2 && int8_scale_term != 101
        && int8_scale_term != 102)
    {
        KITE_LOGE("%s '%s': int8_scale_term %d must be 0, 1, 2, 101 or 102", type_name, n, int8_scale_term);
        return -1;
    }
    if (int8_scale_term < 0)
    {
        KITE_LOGE("%s '%s': int8_scale_term %d must be >= 0", type_name, n, int8_scale_term);
        return -1;
    }
    if (dynamic_weight)
    {
        if (int8_scale_term)
        {
            KITE_LOGE("%s '%s': dynamic_weight with int8_scale_term is not supported", type_name, n);
            return -1;
        }
        one_blob_only = false;
    }
    else
    {
        const long long per_input = conv_checked_product(num_output, kernel_w, kernel_h);
        if (per_input <= 0 || weight_data_size <= 0 || weight_data_size % per_input != 0)
        {
            KITE_LOGE("%s '%s': weight_data_size %d is not a positive multiple of num_output*kernel_w*kernel_h = %lld",
                      type_name, n, weight_data_size, per_input);
            return -1;
        }
    }
    support_int8_storage = int8_scale_term != 0;
    return 0;
}

static Mat expand_scale(const Mat& one, int n)
{
    Mat m(n);
    if (!m.empty())
        m.fill(one[0]);
    return m;
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
        KITE_LOGE("%s '%s': the model has int8 weights but no int8 scales (int8_scale_term is 0)", type_name, name.c_str());
        return -1;
    }

    if (bias_term)
    {
        bias_data = mb.load(num_output, 1);
        if (bias_data.empty())
            return -100;
    }

    // plain: one weight scale per output channel, one bottom and top scale;
    // grouped: every scale expanded to one per group
    if (int8_scale_term)
    {
        const int nweight = !grouped ? num_output : (int8_scale_term % 100 == 1 ? group : 1);
        weight_data_int8_scales = mb.load(nweight, 1);
        bottom_blob_int8_scales = mb.load(1, 1);
        if (weight_data_int8_scales.empty() || bottom_blob_int8_scales.empty())
            return -100;
        if (grouped)
        {
            if (nweight == 1)
                weight_data_int8_scales = expand_scale(weight_data_int8_scales, group);
            bottom_blob_int8_scales = expand_scale(bottom_blob_int8_scales, group);
            if (weight_data_int8_scales.empty() || bottom_blob_int8_scales.empty())
                return -100;
        }
    }
    if (int8_scale_term > 100)
    {
        top_blob_int8_scales = mb.load(1, 1);
        if (grouped && !top_blob_int8_scales.empty())
            top_blob_int8_scales = expand_scale(top_blob_int8_scales, group);
        if (top_blob_int8_scales.empty())
            return -100;
    }
    return 0;
}

int Convolution::create_pipeline(const Option& opt)
{
    if (dynamic_weight)
        return 0;

    // quantize fp32 weights per output channel (grouped: per group), as ncnn
    // does at load time
    if (opt.use_int8_inference && int8_scale_term && weight_data.elemsize == 4u)
    {
        Mat w8;
        int ret = quantize_weights_int8(weight_data, w8, weight_data_int8_scales, grouped ? group : num_output);
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
        KITE_LOGE("%s '%s': dynamic_weight needs the weight as a second input", type_name, name.c_str());
        return -1;
    }
    if (weight_data.elemsize == 1u)
    {
        if (!opt.use_int8_inference)
        {
            KITE_LOGE("%s '%s': int8 weights need use_int8_inference", type_name, name.c_str());
            return -1;
        }
        return forward_int8(bottom_blob, top_blob, opt);
    }
    const int num_input = weight_data_size / (num_output * kernel_w * kernel_h);
    const Mat weight = loaded_weights();
    if (weight.empty())
    {
        KITE_LOGE("%s '%s': no weights (out of memory rebuilding them from the packed copy?)", type_name, name.c_str());
        return -100;
    }
    return forward_fp32(bottom_blob, top_blob, weight, bias_term ? (const float*)bias_data : nullptr,
                        kernel_w, kernel_h, num_output, num_input, opt);
}

int Convolution::forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const
{
    if (!dynamic_weight)
    {
        if (bottom_blobs.size() != 1 || top_blobs.size() != 1)
        {
            KITE_LOGE("%s '%s': expects 1 input and 1 output", type_name, name.c_str());
            return -1;
        }
        return forward(bottom_blobs[0], top_blobs[0], opt);
    }
    const size_t need = bias_term ? 3 : 2;
    if (bottom_blobs.size() != need || top_blobs.size() != 1)
    {
        KITE_LOGE("%s '%s': dynamic_weight expects %zu inputs (blob, weight%s), got %zu", type_name, name.c_str(), need,
                  bias_term ? ", bias" : "", bottom_blobs.size());
        return -1;
    }
    const Mat& wblob = bottom_blobs[1];
    if (wblob.empty() || wblob.elemsize != 4u || wblob.elempack != 1)
    {
        KITE_LOGE("%s '%s': dynamic weight must be a non-empty fp32 blob", type_name, name.c_str());
        return -1;
    }
    const int kw = wblob.w;
    const int kh = wblob.dims >= 2 ? wblob.h : 1;
    const int outch = wblob.dims >= 3 ? wblob.c : 1;
    Mat wflat;
    if (flatten_blob(wblob, wflat, opt.workspace_allocator) != 0)
        return -100;
    if (outch % group != 0)
    {
        KITE_LOGE("%s '%s': dynamic weight has %d output channels, not divisible by group %d", type_name, name.c_str(), outch, group);
        return -1;
    }
    const int inch_g = wflat.w / (kw * kh * outch);
    if (inch_g * kw * kh * outch != wflat.w || inch_g <= 0)
    {
        KITE_LOGE("%s '%s': dynamic weight %d values is not kw*kh*num_output (%d*%d*%d) times inch", type_name, name.c_str(),
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
            KITE_LOGE("%s '%s': dynamic bias has %d values, expected %d", type_name, name.c_str(), bflat.w, outch);
            return -1;
        }
    }
    return forward_fp32(bottom_blobs[0], top_blobs[0], wflat, bias_term ? (const float*)bflat : nullptr, kw, kh, outch, inch_g, opt);
}

void Convolution::resolve_pads_2d(int w, int h, int kw, int kh, int pads[4]) const
{
    const int pads_in[4] = {pad_left, pad_right, pad_top, pad_bottom};
    const int sizes[2] = {w, h};
    const int extents[2] = {conv_kernel_extent(kw, dilation_w), conv_kernel_extent(kh, dilation_h)};
    const int strides[2] = {stride_w, stride_h};
    conv_resolve_pads(pads_in, 2, sizes, extents, strides, pads);
}

int Convolution::forward_fp32(const Mat& bottom_blob, Mat& top_blob, const float* weight, const float* bias,
                              int kw, int kh, int outch, int inch_g, const Option& opt) const
{
    const Activation act(activation_type, activation_params);
    if (bottom_blob.elemsize != 4u || bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 3)
    {
        KITE_LOGE("%s '%s': expects an fp32 elempack-1 input of dims 1..3, got dims=%d elemsize=%zu elempack=%d",
                  type_name, name.c_str(), bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }

    ConvGeometry g;
    g.kernel_w = kw;
    g.kernel_h = kh;
    g.dilation_w = dilation_w;
    g.dilation_h = dilation_h;
    g.stride_w = stride_w;
    g.stride_h = stride_h;

    // a flat vector with a 1x1 kernel is an inner product (as ncnn's
    // Convolution; its grouped layer sees a one-channel row)
    if (!grouped && bottom_blob.dims == 1 && kw == 1 && kh == 1 && bottom_blob.w == inch_g)
    {
        top_blob.create(outch, 4u, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        ConvView in(bottom_blob.data, 1, 1, 1, inch_g, 1);
        ConvView out(top_blob.data, 1, 1, 1, outch, 1);
        conv_forward_fp32(in, out, weight, bias, 1, g, pad_value, act, opt.num_threads);
        return 0;
    }

    const ConvView in = conv_view_spatial(bottom_blob);
    if (in.c != inch_g * group)
    {
        KITE_LOGE("%s '%s': input has %d channels, the weights expect %d (group %d x %d)", type_name, name.c_str(), in.c,
                  inch_g * group, group, inch_g);
        return -1;
    }
    const int extents[2] = {conv_kernel_extent(kw, dilation_w), conv_kernel_extent(kh, dilation_h)};
    int pads[4];
    resolve_pads_2d(in.w, in.h, kw, kh, pads);
    const int outw_span = in.w + pads[0] + pads[1] - extents[0];
    const int outh_span = in.h + pads[2] + pads[3] - extents[1];
    if (outw_span < 0 || outh_span < 0)
    {
        KITE_LOGE("%s '%s': input %dx%d (padded %dx%d) is smaller than the kernel extent %dx%d", type_name, name.c_str(),
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
    conv_forward_fp32(in, conv_view_spatial(top_blob), weight, bias, group, g, pad_value, act, opt.num_threads);
    return 0;
}

int Convolution::int8_epilogue(const Option& opt, std::vector<float>& scale_in, std::vector<float>& scale_out) const
{
    const int maxk = kernel_w * kernel_h;
    const int inch_g = weight_data_size / (num_output * maxk);
    const int channels = inch_g * group;
    const bool requant = int8_scale_term > 100;
    // ncnn's x86 int8 convolution hands the int32 sums to its Requantize /
    // Dequantize kernels: fma(sum, scale_in, bias) in one rounding (on an FMA
    // CPU), activation, then for int8 outputs * scale_out rounded as its SIMD
    // float2int8 does. Mirror that so the int8 values agree exactly.
    int numerics = CONV_INT8_FMA_BIAS | CONV_INT8_ROUND_ADDHALF;
    // Its grouped layer runs a pure depth-wise int8 layer whose channel count
    // is a multiple of 8 (with packing on, its default) in an elempack-8 SIMD
    // kernel that takes the dequantize scale from the approximate reciprocal
    // _mm_rcp_ps and rounds the requantized value with float2int8_sse; its
    // other grouped int8 paths (elempack 1, grouped) divide exactly and round
    // with round(). Follow the same split to give the same int8 values.
    const bool packed_dw = grouped && opt.use_packing_layout && channels == group && group == num_output && channels % 8 == 0;
    if (grouped)
        numerics = packed_dw ? CONV_INT8_ROUND_ADDHALF : 0;
    const int outch_g = num_output / group;
    scale_in.assign(num_output, 0.f);
    scale_out.assign(num_output, 1.f);
    for (int p = 0; p < num_output; p++)
    {
        // plain: one weight scale per output; grouped: per group
        const int gi = grouped ? p / outch_g : 0;
        const float wscale = weight_data_int8_scales[grouped ? gi : p];
        scale_in[p] = packed_dw ? int8_dequant_scale_rcp(bottom_blob_int8_scales[gi], wscale)
                                : int8_dequant_scale(bottom_blob_int8_scales[gi], wscale);
        scale_out[p] = requant ? top_blob_int8_scales[gi] : 1.f;
    }
    return numerics;
}

int Convolution::forward_int8(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
{
    const int maxk = kernel_w * kernel_h;
    const int inch_g = weight_data_size / (num_output * maxk);
    const int channels = inch_g * group;
    if (bottom_blob.elempack != 1 || bottom_blob.dims < 1 || bottom_blob.dims > 3 || (bottom_blob.elemsize != 4u && bottom_blob.elemsize != 1u))
    {
        KITE_LOGE("%s '%s': expects an fp32 or int8 elempack-1 input of dims 1..3, got dims=%d elemsize=%zu elempack=%d",
                  type_name, name.c_str(), bottom_blob.dims, bottom_blob.elemsize, bottom_blob.elempack);
        return -1;
    }

    if (grouped && (bottom_blob.dims == 3 ? bottom_blob.c : 1) != channels)
    {
        KITE_LOGE("%s '%s': input has %d channels, the weights expect %d (group %d x %d)", type_name, name.c_str(),
                  bottom_blob.dims == 3 ? bottom_blob.c : 1, channels, group, inch_g);
        return -1;
    }

    Mat bottom_int8 = bottom_blob;
    if (bottom_blob.elemsize != 1u)
    {
        // grouped: each channel with its group's bottom scale
        std::vector<float> scales(grouped ? channels : 1);
        for (size_t q = 0; q < scales.size(); q++)
            scales[q] = bottom_blob_int8_scales[(int)q / inch_g];
        int ret = quantize_blob_int8(bottom_blob, bottom_int8, scales.data(), (int)scales.size(), opt.workspace_allocator, opt.num_threads);
        if (ret != 0)
            return ret;
    }

    const bool requant = int8_scale_term > 100;
    std::vector<float> scale_in, scale_out;
    const int numerics = int8_epilogue(opt, scale_in, scale_out);
    const Activation act(activation_type, activation_params);
    const size_t out_elemsize = requant ? 1u : 4u;
    const float* bias = bias_term ? (const float*)bias_data : nullptr;

    ConvGeometry g;
    g.kernel_w = kernel_w;
    g.kernel_h = kernel_h;
    g.dilation_w = dilation_w;
    g.dilation_h = dilation_h;
    g.stride_w = stride_w;
    g.stride_h = stride_h;

    if (!grouped && bottom_int8.dims == 1 && maxk == 1 && bottom_int8.w == inch_g)
    {
        top_blob.create(num_output, out_elemsize, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        ConvView in(bottom_int8.data, 1, 1, 1, inch_g, 1);
        ConvView out(top_blob.data, 1, 1, 1, num_output, 1);
        conv_forward_int8(in, out, weight_data, bias, scale_in.data(), requant ? scale_out.data() : nullptr, 1, g,
                          pad_value_int8(pad_value), act, opt.num_threads, numerics);
        return 0;
    }

    const ConvView in = conv_view_spatial(bottom_int8);
    if (in.c != channels)
    {
        KITE_LOGE("%s '%s': input has %d channels, the weights expect %d (group %d x %d)", type_name, name.c_str(), in.c,
                  channels, group, inch_g);
        return -1;
    }
    const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
    int pads[4];
    resolve_pads_2d(in.w, in.h, pads);
    const int outw_span = in.w + pads[0] + pads[1] - extents[0];
    const int outh_span = in.h + pads[2] + pads[3] - extents[1];
    if (outw_span < 0 || outh_span < 0)
    {
        KITE_LOGE("%s '%s': input %dx%d is smaller than the kernel extent %dx%d after padding", type_name, name.c_str(),
                  in.w, in.h, extents[0], extents[1]);
        return -1;
    }
    g.pad_left = pads[0];
    g.pad_top = pads[2];
    const int out_pack = requant ? 1 : int8_out_elempack();
    top_blob.create(outw_span / stride_w + 1, outh_span / stride_h + 1, num_output / out_pack, out_elemsize * out_pack, out_pack,
                    opt.blob_allocator);
    if (top_blob.empty())
        return -100;
    ConvInt8Job job;
    job.in = in;
    job.out = conv_view_spatial(top_blob);
    job.weight = weight_data;
    job.bias = bias;
    job.scale_in = scale_in.data();
    job.scale_out = requant ? scale_out.data() : nullptr;
    job.group = group;
    job.g = g;
    job.pad_value = pad_value_int8(pad_value);
    job.act = act;
    job.numerics = numerics;
    job.out_elempack = out_pack;
    run_int8(job, opt.num_threads);
    return 0;
}

void Convolution::run_int8(const ConvInt8Job& j, int num_threads) const
{
    // the same sums and epilogue as conv_forward_int8, in a loop order that
    // vectorises (common/conv_int8_planes.h)
    if (j.group == 1 && conv_forward_int8_planes(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.g, j.pad_value, j.act, num_threads, j.numerics))
        return;
    conv_forward_int8(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.group, j.g, j.pad_value, j.act, num_threads, j.numerics);
}

DEFINE_LAYER_CREATOR(Convolution)

float Convolution::int8_input_scale() const
{
    return uniform_int8_input_scale(int8_scale_term, weight_data, bottom_blob_int8_scales);
}

int Convolution::quantize_input(const Mat& bottom, Mat& top, const Option& opt) const
{
    return quantize_input_uniform(int8_input_scale(), bottom, top, opt);
}

} // namespace kite
