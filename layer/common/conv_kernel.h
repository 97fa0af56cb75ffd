#ifndef KITE_LAYER_COMMON_CONV_KERNEL_H
#define KITE_LAYER_COMMON_CONV_KERNEL_H

// Plain (readable, unoptimised) convolution and transposed convolution over
// 1, 2 or 3 spatial dimensions with groups, shared by the reference layers of
// the Convolution family. A blob is seen as c channels of (w, h, d) values,
// channel q starting at q * cstep elements. Weights are ncnn's order:
// [out channel][in channel of its group][kd][kh][kw].
//
// Padding is virtual: positions outside the input read pad_value, and a
// negative pad crops (which is what ncnn's copy_make_border amounts to).

#include "activation.h"
#include "int8.h"
#include "log.h"
#include "mat.h"
#include "option.h"

#include <cmath>
#include <cstddef>
#include <cstring>

namespace kite {

struct ConvView
{
    void* data;
    int w, h, d, c;
    size_t cstep; // in elements

    ConvView()
        : data(nullptr), w(0), h(0), d(0), c(0), cstep(0)
    {
    }
    ConvView(void* _data, int _w, int _h, int _d, int _c, size_t _cstep)
        : data(_data), w(_w), h(_h), d(_d), c(_c), cstep(_cstep)
    {
    }
};

// dims 1: (w) one channel; dims 2: (w, h) one channel; dims 3: (w, h) x c;
// dims 4: (w, h, d) x c
static inline ConvView conv_view_spatial(const Mat& m)
{
    if (m.dims == 1)
        return ConvView(m.data, m.w, 1, 1, 1, (size_t)m.w);
    if (m.dims == 2)
        return ConvView(m.data, m.w, m.h, 1, 1, (size_t)m.w * m.h);
    if (m.dims == 3)
        return ConvView(m.data, m.w, m.h, 1, m.c, m.cstep);
    return ConvView(m.data, m.w, m.h, m.d, m.c, m.cstep);
}

// 1-D convolutions: a dims 2 blob (w, h) is h channels of w values
static inline ConvView conv_view_rows(const Mat& m)
{
    if (m.dims == 1)
        return ConvView(m.data, m.w, 1, 1, 1, (size_t)m.w);
    return ConvView(m.data, m.w, 1, 1, m.h, (size_t)m.w);
}

struct ConvGeometry
{
    int kernel_w, kernel_h, kernel_d;
    int dilation_w, dilation_h, dilation_d;
    int stride_w, stride_h, stride_d;
    // convolution: input padding before the first element (negative crops);
    // deconvolution: how much is cut from the start of the full output
    int pad_left, pad_top, pad_front;

    ConvGeometry()
        : kernel_w(1), kernel_h(1), kernel_d(1), dilation_w(1), dilation_h(1), dilation_d(1),
          stride_w(1), stride_h(1), stride_d(1), pad_left(0), pad_top(0), pad_front(0)
    {
    }
    int maxk() const
    {
        return kernel_w * kernel_h * kernel_d;
    }
};

// num_output times the kernel sizes, or 0 when a factor is not positive or the
// product leaves int range (hostile params must not overflow)
static inline long long conv_checked_product(long long a, long long b, long long c = 1, long long d = 1)
{
    const long long limit = 0x7fffffffLL;
    long long r = 1;
    for (long long f : {a, b, c, d})
    {
        if (f <= 0 || f > limit || r > limit / f)
            return 0;
        r *= f;
    }
    return r;
}

static inline int conv_kernel_extent(int kernel, int dilation)
{
    return dilation * (kernel - 1) + 1;
}

// ncnn's padding rule for one axis. pad_begin/pad_end as given by the params
// (-233 SAME_UPPER, -234 SAME_LOWER, else explicit). For SAME, the total pad
// is kernel_extent + (size - 1) / stride * stride - size, split begin = total/2
// (UPPER) or total - total/2 (LOWER).
static inline void conv_same_pad(int size, int kernel_extent, int stride, bool lower, int* begin, int* end)
{
    const int total = kernel_extent + (size - 1) / stride * stride - size;
    if (lower)
    {
        *begin = total - total / 2;
        *end = total / 2;
    }
    else
    {
        *begin = total / 2;
        *end = total - total / 2;
    }
}

// Validates a set of pads from load_param: every pad >= 0, or all -233, or all -234.
static inline int conv_check_pads(const int* pads, int count, const char* type, const char* name)
{
    bool all_upper = true, all_lower = true, all_explicit = true;
    for (int i = 0; i < count; i++)
    {
        all_upper = all_upper && pads[i] == -233;
        all_lower = all_lower && pads[i] == -234;
        all_explicit = all_explicit && pads[i] >= 0;
    }
    if (!all_upper && !all_lower && !all_explicit)
    {
        KITE_LOGE("%s '%s': pads must be all >= 0, all -233 (SAME_UPPER) or all -234 (SAME_LOWER)", type, name);
        return -1;
    }
    return 0;
}

// Convolution input pads for one forward. pads[] in (begin, end) pairs per
// axis w, h, d; sizes/extents/strides per axis; naxes 1..3. Explicit pads are
// used as they are; SAME pads apply only when some axis needs a positive pad,
// as ncnn does.
static inline void conv_resolve_pads(const int* pads_in, int naxes, const int* sizes, const int* extents, const int* strides, int* pads_out)
{
    const bool upper = pads_in[0] == -233;
    const bool lower = pads_in[0] == -234;
    for (int i = 0; i < naxes * 2; i++)
        pads_out[i] = (upper || lower) ? 0 : pads_in[i];
    if (!upper && !lower)
        return;
    int tmp[6] = {0, 0, 0, 0, 0, 0};
    bool any = false;
    for (int a = 0; a < naxes; a++)
    {
        conv_same_pad(sizes[a], extents[a], strides[a], lower, &tmp[a * 2], &tmp[a * 2 + 1]);
        if (tmp[a * 2] + tmp[a * 2 + 1] > 0)
            any = true;
    }
    if (any)
    {
        for (int i = 0; i < naxes * 2; i++)
            pads_out[i] = tmp[i];
        // A SAME pad can come out negative on one axis when the stride exceeds
        // the kernel extent. ncnn's copy_make_border then crops a negative left
        // (w) at the start, but for a negative top (h) or front (d) it keeps
        // the first rows/planes and drops them at the end; follow it
        // (checked against ncnn's Python package).
        for (int a = 1; a < naxes; a++)
        {
            if (pads_out[a * 2] < 0)
            {
                pads_out[a * 2 + 1] += pads_out[a * 2];
                pads_out[a * 2] = 0;
            }
        }
    }
}

// fp32 grouped convolution: out channel oc belongs to group oc / (outch / group)
// and reads in channels [g * inch_g, (g + 1) * inch_g).
static inline void conv_forward_fp32(const ConvView& in, const ConvView& out, const float* weight, const float* bias,
                                     int group, const ConvGeometry& g, float pad_value, const Activation& act, int num_threads)
{
    const int inch_g = in.c / group;
    const int outch_g = out.c / group;
    const int maxk = g.maxk();
    #pragma omp parallel for num_threads(num_threads)
    for (int oc = 0; oc < out.c; oc++)
    {
        const int grp = oc / outch_g;
        const float* wbase = weight + (size_t)oc * inch_g * maxk;
        float* outp = (float*)out.data + out.cstep * oc;
        for (int oz = 0; oz < out.d; oz++)
        {
            for (int oy = 0; oy < out.h; oy++)
            {
                for (int ox = 0; ox < out.w; ox++)
                {
                    float sum = bias ? bias[oc] : 0.f;
                    for (int ic = 0; ic < inch_g; ic++)
                    {
                        const float* inp = (const float*)in.data + in.cstep * (grp * inch_g + ic);
                        const float* wp = wbase + (size_t)ic * maxk;
                        for (int kz = 0; kz < g.kernel_d; kz++)
                        {
                            const int iz = oz * g.stride_d + kz * g.dilation_d - g.pad_front;
                            const bool zin = iz >= 0 && iz < in.d;
                            for (int ky = 0; ky < g.kernel_h; ky++)
                            {
                                const int iy = oy * g.stride_h + ky * g.dilation_h - g.pad_top;
                                const bool yin = zin && iy >= 0 && iy < in.h;
                                for (int kx = 0; kx < g.kernel_w; kx++)
                                {
                                    const int ix = ox * g.stride_w + kx * g.dilation_w - g.pad_left;
                                    const bool inside = yin && ix >= 0 && ix < in.w;
                                    const float v = inside ? inp[((size_t)iz * in.h + iy) * in.w + ix] : pad_value;
                                    sum += v * wp[(kz * g.kernel_h + ky) * g.kernel_w + kx];
                                }
                            }
                        }
                    }
                    outp[((size_t)oz * out.h + oy) * out.w + ox] = act(sum);
                }
            }
        }
    }
}

// How conv_forward_int8 turns the int32 sum into the output, to follow the
// arithmetic of the ncnn kernel that the layer mirrors (flags, OR-ed).
enum
{
    // fmaf(sum, scale_in, bias), one rounding (ncnn's x86 Requantize /
    // Dequantize on an FMA CPU); else (float)sum * scale_in, then + bias
    CONV_INT8_FMA_BIAS = 1,
    // requantize with float2int8_addhalf (ncnn's x86 SIMD rounding); else
    // float2int8 (round half away from zero)
    CONV_INT8_ROUND_ADDHALF = 2,
};

// a * b rounded to float on its own: a following add is not contracted into
// an FMA with it (GCC contracts across statements in C++ by default, so an
// aarch64 or -mfma build would otherwise round sum * scale + bias once in
// some translation units and twice in others)
static inline float conv_int8_product(float a, float b)
{
    float p = a * b;
#if defined(__GNUC__) && (defined(__aarch64__) || defined(__ARM_NEON) || defined(__ARM_FP))
    __asm__("" : "+w"(p));
#elif defined(__GNUC__) && defined(__SSE_MATH__)
    __asm__("" : "+x"(p));
#else
    volatile float v = p;
    p = v;
#endif
    return p;
}

// The epilogue of every int8 convolution kernel: the int32 sum of output
// channel oc becomes out element o (fp32, or int8 when scale_out is set).
static inline void conv_int8_finish(int sum, int oc, const float* bias, const float* scale_in, const float* scale_out,
                                    const Activation& act, int numerics, void* out, size_t o)
{
    float v;
    if (numerics & CONV_INT8_FMA_BIAS)
    {
        v = std::fma((float)sum, scale_in[oc], bias ? bias[oc] : 0.f);
    }
    else
    {
        v = conv_int8_product((float)sum, scale_in[oc]);
        if (bias)
            v += bias[oc];
    }
    v = act(v);
    if (scale_out)
        ((signed char*)out)[o] = (numerics & CONV_INT8_ROUND_ADDHALF) ? float2int8_addhalf(v * scale_out[oc]) : float2int8(v * scale_out[oc]);
    else
        ((float*)out)[o] = v;
}

// One int8 convolution as the reference layers set it up: quantized input
// (padding virtual, pad_value outside), output, weights and per output
// channel scales. Optimised layers override the layer's kernel hook and get
// exactly this, so scales and numerics are decided in one place.
struct ConvInt8Job
{
    ConvView in;
    ConvView out;
    const signed char* weight;
    const float* bias;
    const float* scale_in;
    const float* scale_out; // null: fp32 output
    int group;
    ConvGeometry g;
    signed char pad_value;
    Activation act;
    int numerics;
    // out's elempack: 1 for the reference kernels; an optimised run_int8 may
    // ask for packed fp32 outputs (Convolution::int8_out_elempack), then out.c
    // and out.cstep count packed elements
    int out_elempack = 1;
};

// int8 grouped convolution on an already quantized input. Per out channel:
// fp = sum * scale_in[oc] + bias[oc] (see the CONV_INT8_* flags for how),
// activation, then either stored as fp32 or requantized to int8 with
// float2int8(fp * scale_out[oc]) (scale_out != nullptr).
static inline void conv_forward_int8(const ConvView& in, const ConvView& out, const signed char* weight, const float* bias,
                                     const float* scale_in, const float* scale_out,
                                     int group, const ConvGeometry& g, signed char pad_value, const Activation& act, int num_threads,
                                     int numerics = 0)
{
    const int inch_g = in.c / group;
    const int outch_g = out.c / group;
    const int maxk = g.maxk();
    #pragma omp parallel for num_threads(num_threads)
    for (int oc = 0; oc < out.c; oc++)
    {
        const int grp = oc / outch_g;
        const signed char* wbase = weight + (size_t)oc * inch_g * maxk;
        for (int oz = 0; oz < out.d; oz++)
        {
            for (int oy = 0; oy < out.h; oy++)
            {
                for (int ox = 0; ox < out.w; ox++)
                {
                    int sum = 0;
                    for (int ic = 0; ic < inch_g; ic++)
                    {
                        const signed char* inp = (const signed char*)in.data + in.cstep * (grp * inch_g + ic);
                        const signed char* wp = wbase + (size_t)ic * maxk;
                        for (int kz = 0; kz < g.kernel_d; kz++)
                        {
                            const int iz = oz * g.stride_d + kz * g.dilation_d - g.pad_front;
                            const bool zin = iz >= 0 && iz < in.d;
                            for (int ky = 0; ky < g.kernel_h; ky++)
                            {
                                const int iy = oy * g.stride_h + ky * g.dilation_h - g.pad_top;
                                const bool yin = zin && iy >= 0 && iy < in.h;
                                for (int kx = 0; kx < g.kernel_w; kx++)
                                {
                                    const int ix = ox * g.stride_w + kx * g.dilation_w - g.pad_left;
                                    const bool inside = yin && ix >= 0 && ix < in.w;
                                    const int v = inside ? inp[((size_t)iz * in.h + iy) * in.w + ix] : pad_value;
                                    sum += v * (int)wp[(kz * g.kernel_h + ky) * g.kernel_w + kx];
                                }
                            }
                        }
                    }
                    conv_int8_finish(sum, oc, bias, scale_in, scale_out, act, numerics, out.data,
                                     out.cstep * oc + ((size_t)oz * out.h + oy) * out.w + ox);
                }
            }
        }
    }
}

// fp32 grouped transposed convolution. The full output would be
// (in - 1) * stride + kernel_extent + output_pad per axis; `out` is the part of
// it that starts at (pad_left, pad_top, pad_front). Every output element is
// bias + the contributions that land on it, then the activation.
static inline void deconv_forward_fp32(const ConvView& in, const ConvView& out, const float* weight, const float* bias,
                                       int group, const ConvGeometry& g, const Activation& act, int num_threads)
{
    const int inch_g = in.c / group;
    const int outch_g = out.c / group;
    const int maxk = g.maxk();
    const size_t outsize = (size_t)out.w * out.h * out.d;
    #pragma omp parallel for num_threads(num_threads)
    for (int oc = 0; oc < out.c; oc++)
    {
        const int grp = oc / outch_g;
        const float* wbase = weight + (size_t)oc * inch_g * maxk;
        float* outp = (float*)out.data + out.cstep * oc;
        const float b = bias ? bias[oc] : 0.f;
        for (size_t i = 0; i < outsize; i++)
            outp[i] = b;
        for (int ic = 0; ic < inch_g; ic++)
        {
            const float* inp = (const float*)in.data + in.cstep * (grp * inch_g + ic);
            const float* wp = wbase + (size_t)ic * maxk;
            for (int iz = 0; iz < in.d; iz++)
            {
                for (int iy = 0; iy < in.h; iy++)
                {
                    for (int ix = 0; ix < in.w; ix++)
                    {
                        const float v = inp[((size_t)iz * in.h + iy) * in.w + ix];
                        for (int kz = 0; kz < g.kernel_d; kz++)
                        {
                            const int oz = iz * g.stride_d + kz * g.dilation_d - g.pad_front;
                            if (oz < 0 || oz >= out.d)
                                continue;
                            for (int ky = 0; ky < g.kernel_h; ky++)
                            {
                                const int oy = iy * g.stride_h + ky * g.dilation_h - g.pad_top;
                                if (oy < 0 || oy >= out.h)
                                    continue;
                                for (int kx = 0; kx < g.kernel_w; kx++)
                                {
                                    const int ox = ix * g.stride_w + kx * g.dilation_w - g.pad_left;
                                    if (ox < 0 || ox >= out.w)
                                        continue;
                                    outp[((size_t)oz * out.h + oy) * out.w + ox] += v * wp[(kz * g.kernel_h + ky) * g.kernel_w + kx];
                                }
                            }
                        }
                    }
                }
            }
        }
        if (act.type != ACTIVATION_NONE)
        {
            for (size_t i = 0; i < outsize; i++)
                outp[i] = act(outp[i]);
        }
    }
}

// Deconvolution output cut for one axis, ncnn's rule. full: the full output
// size; pads as given (explicit >= 0, or -233/-234); output_size: params 20/21
// (or 25..27), 0 if unset. Writes the cut at the start and the final size.
// Returns -1 when the result would be empty or larger than the full output.
static inline int deconv_axis_cut(int full, int pad_begin, int pad_end, int output_size, bool any_explicit_pad, bool use_output_size,
                                  int* cut_begin, int* out_size)
{
    *cut_begin = 0;
    *out_size = full;
    if (any_explicit_pad)
    {
        *cut_begin = pad_begin;
        *out_size = full - pad_begin - pad_end;
    }
    else if (use_output_size)
    {
        const int cut = full - output_size;
        if (cut < 0)
            return -1;
        *cut_begin = pad_begin == -234 ? cut - cut / 2 : cut / 2;
        *out_size = output_size;
    }
    return *out_size > 0 ? 0 : -1;
}

// Quantize an fp32 elempack-1 blob to int8 (same dims). Channel q (dims 3/4;
// dims 1/2 are one channel) uses scales[nscales == 1 ? 0 : q]. Returns -100 on
// allocation failure.
static inline int quantize_blob_int8(const Mat& in, Mat& out, const float* scales, int nscales, Allocator* allocator, int num_threads)
{
    if (in.dims == 1)
        out.create(in.w, (size_t)1u, allocator);
    else if (in.dims == 2)
        out.create(in.w, in.h, (size_t)1u, allocator);
    else if (in.dims == 3)
        out.create(in.w, in.h, in.c, (size_t)1u, allocator);
    else
        out.create(in.w, in.h, in.d, in.c, (size_t)1u, allocator);
    if (out.empty())
        return -100;
    const int channels = in.dims >= 3 ? in.c : 1;
    const size_t size = (size_t)in.w * in.h * (in.dims == 4 ? in.d : 1);
    #pragma omp parallel for num_threads(num_threads)
    for (int q = 0; q < channels; q++)
    {
        const float scale = scales[nscales == 1 ? 0 : q];
        const float* src = (const float*)in.data + (in.dims >= 3 ? in.cstep * q : 0);
        signed char* dst = (signed char*)out.data + (in.dims >= 3 ? out.cstep * q : 0);
        quantize_floats(src, dst, size, scale);
    }
    return 0;
}

// The one scale an int8 layer (Convolution, InnerProduct) quantizes its whole
// input with, 0 where it has none or one per channel (Layer::int8_input_scale:
// GPU uploads of blobs only int8 layers read)
static inline float uniform_int8_input_scale(int int8_scale_term, const Mat& weight_data, const Mat& scales)
{
    if (!int8_scale_term || weight_data.elemsize != 1u || scales.empty())
        return 0.f;
    const float* s = scales;
    for (size_t i = 1; i < scales.total(); i++)
        if (s[i] != s[0])
            return 0.f;
    return s[0];
}

// Quantize an fp32 blob of any packing with that scale as the layer's forward
// does (quantize_blob_int8: float2int8(v * scale)); 1: not applicable
static inline int quantize_input_uniform(float scale, const Mat& bottom, Mat& top, const Option& opt)
{
    if (scale == 0.f || bottom.empty() || bottom.elemsize / bottom.elempack != 4u)
        return 1;
    Mat b = bottom;
    if (b.elempack != 1)
    {
        convert_packing(bottom, b, 1, opt);
        if (b.empty())
            return -100;
    }
    return quantize_blob_int8(b, top, &scale, 1, opt.blob_allocator, opt.num_threads);
}

// Copy the values of any fp32 elempack-1 blob into a contiguous vector-like
// Mat of w = all values (drops channel padding). Returns -100 on failure.
static inline int flatten_blob(const Mat& in, Mat& out, Allocator* allocator)
{
    const int channels = in.dims >= 3 ? in.c : 1;
    const size_t size = (size_t)in.w * in.h * (in.dims == 4 ? in.d : 1);
    out.create((int)(size * channels), in.elemsize, allocator);
    if (out.empty())
        return -100;
    for (int q = 0; q < channels; q++)
    {
        const unsigned char* src = (const unsigned char*)in.data + (in.dims >= 3 ? in.cstep * q * in.elemsize : 0);
        memcpy((unsigned char*)out.data + size * q * in.elemsize, src, size * in.elemsize);
    }
    return 0;
}

// Quantize fp32 weights [num_groups][n / num_groups] with one scale per group
// (an out channel for Convolution, a group for ConvolutionDepthWise).
static inline int quantize_weights_int8(const Mat& weight, Mat& weight_int8, const float* scales, int num_groups)
{
    const int n = weight.w;
    weight_int8.create(n, (size_t)1u);
    if (weight_int8.empty())
        return -100;
    const int per = n / num_groups;
    for (int g = 0; g < num_groups; g++)
        quantize_floats((const float*)weight.data + (size_t)per * g, (signed char*)weight_int8.data + (size_t)per * g, per, scales[g]);
    return 0;
}

} // namespace kite

#endif // KITE_LAYER_COMMON_CONV_KERNEL_H
