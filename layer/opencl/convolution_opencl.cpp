// Convolution on OpenCL images: the filter in the seeds' conv-filter layout,
// conv2d_1x1 for 1x1/stride 1/no pad, conv2d_x4 otherwise (conv2d where the
// output is narrower than 4 or with KITE_OPENCL_CONV=legacy;
// shaders/opencl/conv.cl);
// filters too large for the seed layout's image go through conv2d_wide.
// int8 layers (int8_scale_term) run with the CPU's int8 arithmetic on an
// input quantized once by quantize_int8 (or an int8 blob): the tiled
// implicit GEMM conv2d_int8_gemm (int8.cl; 64 x 64 or 32 x 32 output tiles,
// K split over work groups where the tiles are few), or with
// KITE_OPENCL_INT8CONV=x4 (or KITE_OPENCL_CONV=legacy) the earlier
// conv2d_int8_x4; their requantized outputs are int8 blobs. 3x3 stride-1
// convolutions with enough channels run Winograd F(2x2, 3x3) through the
// seeds' height-/width-major images (winograd.cl).
#include "convolution.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "common/winograd23.h"
#include "gpu/opencl/cl_ops.h"
#include "log.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace kite {

class Convolution_opencl : public Convolution
{
public:
    Convolution_opencl() { support_opencl = true; }
    bool accept() const override { return dynamic_weight == 0; }
    int create_pipeline(const Option& opt) override;
    int destroy_pipeline(const Option& opt) override;
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& s,
                    const Option& opt) const override;

private:
    cl::Weights w_;
    int num_input_ = 0;
    bool wide_ = false; // filter too large for the seed layout: conv2d_wide
    bool int8_ = false; // int8 weights: conv2d_int8 (wide int8 filters run on the CPU)
    cl_mem gemm_w_ = nullptr; // conv2d_int8_gemm's weights (char4 words)
    bool cpu_device_ = false;
    int upload_int8_gemm();
    int forward_int8_gemm(const cl::Image& src, const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s,
                          cl::ClBlobPtr& out) const;
    int forward_int8_gpu(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s, cl::ClBlobPtr& out) const;
    bool winograd_ = false; // images[2]: the transformed filter U (winograd.cl)
    int upload_winograd_filter(bool half);
    // forward_float runs conv2d_1x1 (the kernel that can add a residual)
    bool one_by_one(const int* pads) const
    {
        return !winograd_ && !wide_ && kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1 && pads[0] == 0 &&
               pads[1] == 0 && pads[2] == 0 && pads[3] == 0;
    }
    // 1: not applicable to this shape (run the direct kernel)
    int forward_winograd(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s, const Activation& act,
                         const cl::Image& dst) const;
    // the float convolution into dst with activation act (the layer's own,
    // or one of the next layer's when the launch was put off: see forward_gpu)
    // res (conv2d_1x1 only): an image added before the activation, its
    // first res_c channels (zeros past them: a channel Padding read through)
    // dwl (conv2d_1x1 only): the put-off depth-wise convolution that makes
    // `in`, run in this launch (conv.cl dwconv_1x1) instead of reading in
    int forward_float(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s, const Activation& act,
                      const cl::Image& dst, const cl::Image* res = nullptr, int res_c = -1,
                      const cl::DwLaunch* dwl = nullptr) const;
};

int Convolution_opencl::create_pipeline(const Option& opt)
{
    int ret = Convolution::create_pipeline(opt);
    if (ret != 0)
        return ret;
    w_.ctx = cl::Context::get(opt.opencl_device);
    if (!w_.ctx)
        return -1;
    num_input_ = weight_data_size / (num_output * kernel_w * kernel_h);
    const int K = num_input_ * kernel_h * kernel_w;
    wide_ = (size_t)num_input_ > w_.ctx->image_max_w || (size_t)cl::div4(num_output) * kernel_h * kernel_w > w_.ctx->image_max_h;
    int8_ = weight_data.elemsize == 1u;
    if (int8_)
    {
        if (wide_)
            return 0; // forward runs on the CPU
        ret = cl::upload_seed_layout_int8(w_.ctx, cl::SEED_CONV_FILTER, (const signed char*)weight_data.data,
                                          (size_t)weight_data_size, num_output, num_input_, kernel_h, kernel_w, w_.add());
        if (ret != 0)
            return ret;
        // the scales of Convolution::forward_int8
        std::vector<float> scale_in(num_output), scale_out(num_output);
        for (int p = 0; p < num_output; p++)
        {
            scale_in[p] = int8_dequant_scale(bottom_blob_int8_scales[0], weight_data_int8_scales[p]);
            scale_out[p] = int8_scale_term > 100 ? top_blob_int8_scales[0] : 1.f;
        }
        ret = cl::upload_int8_arguments(w_.ctx, num_output, bias_term ? (const float*)bias_data : nullptr, scale_in.data(),
                                        scale_out.data(), nullptr, w_.add());
        if (ret == 0)
            ret = upload_int8_gemm();
        return ret != 0 ? ret : cl::prepare_programs(w_.ctx, opt, {"int8"});
    }
    // half images with fp16 storage (read_imagef/read_imageh convert: half
    // the bytes on every device, cl_khr_fp16 or not)
    const bool half = opt.use_fp16_storage;
    if (wide_)
        ret = cl::upload_linear_weights(w_.ctx, weight_data, num_output, K, w_.add(), half);
    else
        ret = cl::upload_seed_layout(w_.ctx, cl::SEED_CONV_FILTER, weight_data, (size_t)weight_data_size, num_output,
                                 num_input_, kernel_h, kernel_w, half, w_.add());
    if (ret != 0)
        return ret;
    ret = cl::upload_argument(w_.ctx, bias_term ? (const float*)bias_data : nullptr, num_output, w_.add());
    if (ret != 0)
        return ret;
    // Winograd where its transforms pay: 3x3, stride 1, no dilation, >= 8 channels in and out
    winograd_ = !wide_ && kernel_w == 3 && kernel_h == 3 && stride_w == 1 && stride_h == 1 && dilation_w == 1
                && dilation_h == 1 && num_input_ >= 8 && num_output >= 8
                && (size_t)16 * num_output <= w_.ctx->image_max_h;
    ret = winograd_ ? upload_winograd_filter(half) : 0;
    if (ret != 0)
        return ret;
    return winograd_ ? cl::prepare_programs(w_.ctx, opt, {"conv", "winograd"}) : cl::prepare_programs(w_.ctx, opt, {"conv"});
}

int Convolution_opencl::upload_winograd_filter(bool half)
{
    // U = G g G^T per (o, c) (common/winograd23.h), stored
    // NHWC (N = 16 transform points, H = O, W = C, C = 1) in the seeds'
    // width-major layout
    const int O = num_output, C = num_input_;
    std::vector<float> u((size_t)16 * O * C);
    winograd23_transform_filters(weight_data, O, C, u.data());
    return cl::upload_seed_layout(w_.ctx, cl::SEED_WIDTH_MAJOR, u.data(), u.size(), 16, O, C, 1, half, w_.add());
}

int Convolution_opencl::forward_winograd(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s,
                                         const Activation& act, const cl::Image& dst) const
{
    const int TW = (OW + 1) / 2, T = TW * ((OH + 1) / 2);
    const int CB = cl::div4(in->C), OB = cl::div4(num_output);
    if ((size_t)T > w_.ctx->image_max_w || (size_t)16 * std::max(CB, OB) > w_.ctx->image_max_h)
        return 1;
    cl_kernel ki = s.kernel("winograd", "winograd_input");
    // the GEMM per alpha: winograd_gemm_tiled (local-memory tiles of 64 x 64
    // outputs x tiles, 32 x 32 where fewer than 256 work groups of the large
    // ones), KITE_OPENCL_WINOGEMM=16 or 8 forces the tile, =48
    // winograd_gemm48 (8 output channels x 4 tiles a work item); with
    // KITE_OPENCL_CONV=legacy winograd_gemm (4 x 1)
    const char* legacy = getenv("KITE_OPENCL_CONV");
    const char* wg = getenv("KITE_OPENCL_WINOGEMM");
    const int gemm = legacy && strcmp(legacy, "legacy") == 0 ? 0
                     : wg && strcmp(wg, "48") == 0        ? 48
                     : wg && strcmp(wg, "16") == 0        ? 16
                     : wg && strcmp(wg, "8") == 0         ? 8
                                                          : -1;
    const char* gname = gemm == 0 ? "winograd_gemm" : gemm == 48 ? "winograd_gemm48" : "winograd_gemm_tiled";
    cl_kernel kg = s.kernel("winograd", gname);
    cl_kernel ko = s.kernel("winograd", "winograd_output");
    if (!ki || !kg || !ko)
        return -1;
    // V and M in float whatever the storage (intermediates of this layer)
    cl::Image v, m;
    int ret = s.pool->acquire(T, 16 * CB, false, v);
    if (ret != 0)
        return ret;
    ret = s.pool->acquire(T, 16 * OB, false, m);
    if (ret != 0)
    {
        s.pool->release(v);
        return ret;
    }
    cl::KernelArgs ai(ki);
    ai.img(in->image).img(v).i(in->C).i(in->H).i(in->W).i(TW).i(T).i(pads[0]).i(pads[2]).f(pad_value);
    ret = cl::run2d(s, ki, "winograd_input", T, CB, ai);
    if (ret == 0)
    {
        cl::KernelArgs ag(kg);
        ag.img(w_.images[2]).img(v).img(m).i(in->C).i(num_output).i(T);
        if (gemm == 0)
            ret = cl::run2d(s, kg, gname, T, OB * 16, ag);
        else if (gemm == 48)
            ret = cl::run2d(s, kg, gname, cl::div4(T), (num_output + 7) / 8 * 16, ag);
        else
        {
            int TS = gemm;
            if (TS < 0)
            {
                const long long wgs64 = (long long)((T + 63) / 64) * ((num_output + 63) / 64) * 16;
                TS = wgs64 >= 256 ? 16 : 8;
            }
            size_t kmax = 0;
            cl::api()->clGetKernelWorkGroupInfo(kg, w_.ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax), &kmax, nullptr);
            if (TS == 16 && kmax > 0 && kmax < 256)
                TS = 8;
            const size_t gws[3] = {(size_t)((T + 4 * TS - 1) / (4 * TS)) * TS,
                                   (size_t)((num_output + 4 * TS - 1) / (4 * TS)) * TS, 16};
            const size_t lws[3] = {(size_t)TS, (size_t)TS, 1};
            ret = ag.error() ? -1 : s.dispatch(kg, gname, 3, gws, lws);
        }
    }
    if (ret == 0)
    {
        cl::KernelArgs ao(ko);
        ao.img(m).img(w_.images[1]).img(dst).i(num_output).i(OH).i(OW).i(TW).i(T).i(bias_term);
        ao.i(act.type).f(act.p0).f(act.p1);
        ret = cl::run2d(s, ko, "winograd_output", T, OB, ao);
    }
    // back to the pool: later users are queued after these kernels (in-order queue)
    s.pool->release(v);
    s.pool->release(m);
    return ret;
}

int Convolution_opencl::upload_int8_gemm()
{
    // word ((oq * KQ + kq) * 4 + l), lane j: weight of output channel
    // 4 oq + j, tap kq / CB, input channel 4 (kq % CB) + l; 0 beyond the counts
    const int taps = kernel_w * kernel_h, CB = cl::div4(num_input_), OQ = cl::div4(num_output);
    const int KQ = taps * CB;
    std::vector<signed char> w((size_t)OQ * KQ * 16, 0);
    const signed char* src = (const signed char*)weight_data.data;
    for (int oc = 0; oc < num_output; oc++)
        for (int ic = 0; ic < num_input_; ic++)
            for (int t = 0; t < taps; t++)
            {
                const int kq = t * CB + ic / 4;
                w[(((size_t)(oc / 4) * KQ + kq) * 4 + ic % 4) * 4 + oc % 4] = src[((size_t)oc * num_input_ + ic) * taps + t];
            }
    cl_int err = 0;
    gemm_w_ = cl::api()->clCreateBuffer(w_.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w.size(), w.data(), &err);
    if (!gemm_w_)
    {
        KITE_LOGE("Convolution '%s': OpenCL weight buffer of %zu bytes failed (%d)", name.c_str(), w.size(), (int)err);
        return -100;
    }
    cl_device_type type = 0;
    cl::api()->clGetDeviceInfo(w_.ctx->device, CL_DEVICE_TYPE, sizeof(type), &type, nullptr);
    cpu_device_ = (type & CL_DEVICE_TYPE_CPU) != 0;
    return 0;
}

int Convolution_opencl::destroy_pipeline(const Option& opt)
{
    w_.release();
    if (gemm_w_)
        cl::api()->clReleaseMemObject(gemm_w_);
    gemm_w_ = nullptr;
    return Convolution::destroy_pipeline(opt);
}

int Convolution_opencl::forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops,
                                    GpuSession& gs, const Option& opt) const
{
    cl::Session& s = cl::session(gs);
    const cl::ClBlob* in = cl::blob(bottoms[0]);
    if (in->dims() != 3 || in->C != num_input_)
        return cl::run_on_cpu(this, bottoms, tops, s, opt);
    const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
    int pads[4];
    resolve_pads_2d(in->W, in->H, pads);
    const int OW = (in->W + pads[0] + pads[1] - extents[0]) / stride_w + 1;
    const int OH = (in->H + pads[2] + pads[3] - extents[1]) / stride_h + 1;
    if (OW <= 0 || OH <= 0)
    {
        KITE_LOGE("Convolution '%s': input %d x %d is smaller than the kernel", name.c_str(), in->W, in->H);
        return -1;
    }
    if (int8_ && wide_)
        return cl::run_on_cpu(this, bottoms, tops, s, opt);
    cl::ClBlobPtr out;
    // an int8 layer's dequantized (float) output stays a float image under
    // fp16 storage: the next int8 layer quantizes it (a value rounded to
    // fp16 first may move by one step)
    int ret = s.create_blob(cl::shape3(OW, OH, num_output), out, int8_ && int8_scale_term <= 100);
    if (ret != 0)
        return ret;
    // a put-off depth-wise convolution before it on a small map: both in
    // one launch (its sums computed again per output block: at most 4096
    // pixels and 2^25 multiply-adds of them, KITE_OPENCL_DWPW_MAX_MACS=n
    // for another limit). Only with KITE_OPENCL_FUSE_DWPW=1 (slower on a
    // GPU, see cl_runtime.h)
    std::shared_ptr<cl::DwLaunch> dwl;
    const cl::DwLaunch* dp = in->dw_launch.get();
    if (!int8_ && one_by_one(pads) && cl::pending(in) && dp && dp->C == in->C && dp->OW == in->W && dp->OH == in->H &&
        cl::fusion_opted_in("KITE_OPENCL_FUSE_DWPW"))
    {
        const char* lim = getenv("KITE_OPENCL_DWPW_MAX_MACS");
        const long long max_macs = lim ? atoll(lim) : (1LL << 25);
        const long long px = (long long)in->W * in->H;
        if (px <= 4096 && px * in->C * dp->kw * dp->kh * cl::div4(num_output) <= max_macs)
        {
            dwl = in->dw_launch;
            in->deferred->read_through = true;
        }
    }
    if (int8_)
    {
        ret = forward_int8_gpu(in, OW, OH, pads, s, out);
    }
    else if (activation_type == ACTIVATION_NONE)
    {
        // put off (Session::defer_elementwise): an activation layer right
        // after it (Swish, HardSwish, Sigmoid, ReLU, ... of the graphs whose
        // converter did not fuse them) runs in this launch, one launch fewer;
        // anything else reading the output runs it as it is
        const GpuBlobPtr src = bottoms[0];
        const Convolution_opencl* self = this;
        cl::Session* sp = &s;
        const int p[4] = {pads[0], pads[1], pads[2], pads[3]};
        s.defer_elementwise(*out, [self, sp, src, OW, OH, p, dwl](int at, float a0, float a1, const cl::Image& dst) {
            Activation a;
            a.type = at;
            a.p0 = a0;
            a.p1 = a1;
            return self->forward_float(cl::blob(src), OW, OH, p, *sp, a, dst, nullptr, -1, dwl.get());
        });
        // and a residual add after it (BinaryOp, Eltwise) can run in it too
        // where the 1x1 kernel runs it. KITE_OPENCL_FUSE_RESIDUAL=0: off
        if (one_by_one(pads) && cl::fusion_on("KITE_OPENCL_FUSE_RESIDUAL"))
            out->with_residual = [self, sp, src, OW, OH, p, dwl](const cl::Image& res, int res_c, int at, float a0,
                                                                float a1, const cl::Image& dst) {
                Activation a;
                a.type = at;
                a.p0 = a0;
                a.p1 = a1;
                return self->forward_float(cl::blob(src), OW, OH, p, *sp, a, dst, &res, res_c, dwl.get());
            };
        ret = 0;
    }
    else
    {
        ret = forward_float(in, OW, OH, pads, s, Activation(activation_type, activation_params), out->image, nullptr, -1,
                            dwl.get());
    }
    if (ret != 0)
        return ret;
    tops[0] = out;
    return 0;
}

int Convolution_opencl::forward_float(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s,
                                      const Activation& act, const cl::Image& dst, const cl::Image* res, int res_c,
                                      const cl::DwLaunch* dwl) const
{
    const int OB = cl::div4(num_output);
    int ret = 1;
    if ((res || dwl) && !one_by_one(pads))
    {
        KITE_LOGE("Convolution '%s': a residual add or depth-wise convolution only in the 1x1 kernel", name.c_str());
        return -1;
    }
    if (dwl)
    {
        cl_kernel k = s.kernel("conv", "dwconv_1x1");
        if (!k)
            return -1;
        const cl::ClBlob* ds = dwl->src.get();
        cl::KernelArgs a(k);
        a.img(ds->image).img(dwl->filt).img(dwl->bias).img(w_.images[0]).img(w_.images[1]).img(dst);
        a.i(dwl->C).i(ds->H).i(ds->W).i(OH).i(OW).i(dwl->kw).i(dwl->kh).i(dwl->sw).i(dwl->sh).i(dwl->dw).i(dwl->dh);
        a.i(dwl->pl).i(dwl->pt).f(dwl->pad_value).i(dwl->has_bias).i(dwl->act).f(dwl->p0).f(dwl->p1);
        a.i(OB).i(bias_term).i(act.type).f(act.p0).f(act.p1).img(res ? *res : ds->image).i(res ? res_c : -1);
        return cl::run2d(s, k, "dwconv_1x1", cl::div4(OW) * OB, OH, a);
    }
    if (winograd_ && (ret = forward_winograd(in, OW, OH, pads, s, act, dst)) <= 0)
    {
        // done (0) or failed (< 0)
    }
    else if (wide_)
    {
        cl_kernel k = s.kernel("conv", "conv2d_wide");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(dst).i(in->C).i(in->H).i(in->W).i(num_output).i(OH).i(OW);
        a.i(kernel_w).i(kernel_h).i(stride_w).i(stride_h).i(dilation_w).i(dilation_h).i(pads[0]).i(pads[2]).f(pad_value);
        a.i(bias_term).i(act.type).f(act.p0).f(act.p1);
        ret = cl::run2d(s, k, "conv2d_wide", OW * OB, OH, a);
    }
    else if (kernel_w == 1 && kernel_h == 1 && stride_w == 1 && stride_h == 1 && pads[0] == 0 && pads[1] == 0 && pads[2] == 0 && pads[3] == 0)
    {
        // (one_by_one: this branch)
        cl_kernel k = s.kernel("conv", "conv2d_1x1");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(dst).i(in->C).i(in->H).i(in->W).i(OB).i(bias_term).i(act.type).f(act.p0).f(act.p1);
        a.img(res ? *res : in->image).i(res ? res_c : -1);
        ret = cl::run2d(s, k, "conv2d_1x1", cl::div4(in->W) * OB, in->H, a);
    }
    else
    {
        // conv2d_x4 (4 output pixels a work item) where the map is at least
        // 4 wide; conv2d with KITE_OPENCL_CONV=legacy
        const char* legacy = getenv("KITE_OPENCL_CONV");
        const bool x4 = OW >= 4 && !(legacy && strcmp(legacy, "legacy") == 0);
        const char* kname = x4 ? "conv2d_x4" : "conv2d";
        cl_kernel k = s.kernel("conv", kname);
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(dst).i(in->C).i(in->H).i(in->W).i(OB).i(OH).i(OW);
        a.i(kernel_w).i(kernel_h).i(stride_w).i(stride_h).i(dilation_w).i(dilation_h).i(pads[0]).i(pads[2]).f(pad_value);
        a.i(bias_term).i(act.type).f(act.p0).f(act.p1);
        ret = cl::run2d(s, k, kname, (x4 ? cl::div4(OW) : OW) * OB, OH, a);
    }
    return ret;
}

int Convolution_opencl::forward_int8_gpu(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s,
                                         cl::ClBlobPtr& out) const
{
    const Activation act(activation_type, activation_params);
    const int OB = cl::div4(num_output);
    const bool requant = int8_scale_term > 100;
    // Convolution::forward_int8: fma(sum, scale_in, bias), add-half requantize
    const int numerics = 1 | 2;
    // KITE_OPENCL_INT8CONV=direct: conv2d_int8, quantizing every tap (for
    // comparisons); else the input quantized once (quantize_int8, unless it
    // holds int8 values) and conv2d_int8_gemm, or with
    // KITE_OPENCL_INT8CONV=x4 or KITE_OPENCL_CONV=legacy conv2d_int8_x4 (4
    // output pixels a work item)
    const char* mode = getenv("KITE_OPENCL_INT8CONV");
    const char* legacy = getenv("KITE_OPENCL_CONV");
    const bool direct = mode && strcmp(mode, "direct") == 0;
    const bool x4 = (mode && strcmp(mode, "x4") == 0) || (legacy && strcmp(legacy, "legacy") == 0);
    if (direct)
    {
        cl_kernel k = s.kernel("int8", "conv2d_int8");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image).i(in->C).i(in->H).i(in->W).i(OB).i(OH).i(OW);
        a.i(kernel_w).i(kernel_h).i(stride_w).i(stride_h).i(dilation_w).i(dilation_h).i(pads[0]).i(pads[2]);
        a.f((float)pad_value_int8(pad_value)).i(in->int8).f(bottom_blob_int8_scales[0]);
        a.i(bias_term).i(numerics).i(requant).i(act.type).f(act.p0).f(act.p1);
        int ret = cl::run2d(s, k, "conv2d_int8", OW * OB, OH, a);
        out->int8 = requant;
        return ret;
    }
    cl_kernel k = s.kernel("int8", x4 ? "conv2d_int8_x4" : "conv2d_int8_gemm");
    if (!k)
        return -1;
    cl::Image q;
    const cl::Image* src = &in->image;
    int ret = 0;
    if (!in->int8)
    {
        cl_kernel kq = s.kernel("int8", "quantize_int8");
        if (!kq)
            return -1;
        const int qw = cl::div4(in->C) * in->W;
        // float whatever the storage: the values are integers of at most 127
        ret = s.pool->acquire(qw, in->H, false, q);
        if (ret != 0)
            return ret;
        cl::KernelArgs aq(kq);
        aq.img(in->image).img(q).i(qw).i(in->H).f(bottom_blob_int8_scales[0]);
        ret = cl::run2d(s, kq, "quantize_int8", qw, in->H, aq);
        src = &q;
    }
    if (ret == 0 && !x4)
    {
        ret = forward_int8_gemm(*src, in, OW, OH, pads, s, out);
    }
    else if (ret == 0)
    {
        cl::KernelArgs a(k);
        a.img(*src).img(w_.images[0]).img(w_.images[1]).img(out->image).i(in->C).i(in->H).i(in->W).i(OB).i(OH).i(OW);
        a.i(kernel_w).i(kernel_h).i(stride_w).i(stride_h).i(dilation_w).i(dilation_h).i(pads[0]).i(pads[2]);
        a.f((float)pad_value_int8(pad_value)).i(bias_term).i(numerics).i(requant).i(act.type).f(act.p0).f(act.p1);
        ret = cl::run2d(s, k, "conv2d_int8_x4", cl::div4(OW) * OB, OH, a);
    }
    // back to the pool: later users are queued after these kernels (in-order queue)
    if (!in->int8)
        s.pool->release(q);
    out->int8 = requant;
    return ret;
}

// conv2d_int8_gemm's tiles and K splits (the choices of the Vulkan driver,
// layer/vulkan/conv_vulkan.h): 64 x 64 output tiles (16 x 16 items), 32 x 32
// ones (8 x 8) where fewer than 256 of the large ones, split K where the work
// groups are fewer than 512, each split at least 32 steps, at most 32
// splits; a CPU device takes 64 x 64 and no split.
// KITE_OPENCL_INT8CONV=16 or 8 forces the tile, KITE_OPENCL_INT8SPLITK=N
// N splits (1: none).
int Convolution_opencl::forward_int8_gemm(const cl::Image& src, const cl::ClBlob* in, int OW, int OH, const int* pads,
                                          cl::Session& s, cl::ClBlobPtr& out) const
{
    const Activation act(activation_type, activation_params);
    const bool requant = int8_scale_term > 100;
    const int numerics = 1 | 2;
    const int n = OW * OH, OQ = cl::div4(num_output);
    const int KQ = kernel_w * kernel_h * cl::div4(in->C);
    const int steps = (KQ + 3) / 4;
    cl_kernel k = s.kernel("int8", "conv2d_int8_gemm");
    if (!k || !gemm_w_)
        return -1;
    const char* mode = getenv("KITE_OPENCL_INT8CONV");
    int T = mode && strcmp(mode, "16") == 0 ? 16 : mode && strcmp(mode, "8") == 0 ? 8 : 0;
    if (T == 0)
    {
        const long long tiles64 = (long long)((n + 63) / 64) * ((OQ + 15) / 16);
        T = cpu_device_ || tiles64 >= 256 ? 16 : 8;
    }
    size_t kmax = 0;
    cl::api()->clGetKernelWorkGroupInfo(k, w_.ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax), &kmax, nullptr);
    if (T == 16 && kmax > 0 && kmax < 256)
        T = 8;
    const long long wgs = (long long)((n + 4 * T - 1) / (4 * T)) * ((OQ + T - 1) / T);
    const char* es = getenv("KITE_OPENCL_INT8SPLITK");
    int splits = es ? atoi(es) : 0;
    if (splits <= 0 && cpu_device_)
        splits = 1;
    if (splits <= 0)
    {
        splits = steps / 32;
        splits = (int)std::min<long long>(splits, 512 / std::max(1LL, wgs));
        splits = std::min(splits, 32);
    }
    splits = std::max(1, std::min(splits, steps));
    // the partial sums' image: OQ * OW wide, 2 * splits * OH high
    while (splits > 1 && (size_t)2 * splits * OH > w_.ctx->image_max_h)
        splits--;
    if ((size_t)OQ * OW > w_.ctx->image_max_w)
        splits = 1;
    const int kchunk = (steps + splits - 1) / splits * 4;
    splits = (KQ + kchunk - 1) / kchunk;
    cl::Image part;
    int ret = 0;
    if (splits > 1)
    {
        ret = s.pool->acquire(OQ * OW, 2 * splits * OH, false, part);
        if (ret != 0)
            return ret;
    }
    cl::KernelArgs a(k);
    a.img(src).mem(gemm_w_).img(w_.images[1]).img(splits > 1 ? part : out->image).i(in->C).i(in->H).i(in->W).i(num_output);
    a.i(OH).i(OW).i(kernel_w).i(kernel_h).i(stride_w).i(stride_h).i(dilation_w).i(dilation_h).i(pads[0]).i(pads[2]);
    a.f((float)pad_value_int8(pad_value)).i(bias_term).i(numerics).i(requant).i(act.type).f(act.p0).f(act.p1);
    a.i(splits).i(kchunk);
    if (a.error())
        ret = -1;
    if (ret == 0)
    {
        const size_t gws[3] = {(size_t)((n + 4 * T - 1) / (4 * T)) * T, (size_t)((OQ + T - 1) / T) * T, (size_t)splits};
        const size_t lws[3] = {(size_t)T, (size_t)T, 1};
        ret = s.dispatch(k, "conv2d_int8_gemm", 3, gws, lws);
    }
    if (ret == 0 && splits > 1)
    {
        cl_kernel kf = s.kernel("int8", "conv2d_int8_splitk");
        if (!kf)
            ret = -1;
        else
        {
            cl::KernelArgs af(kf);
            af.img(part).img(w_.images[1]).img(out->image).i(OQ).i(OH).i(OW).i(splits).i(bias_term).i(numerics).i(requant);
            af.i(act.type).f(act.p0).f(act.p1);
            ret = cl::run2d(s, kf, "conv2d_int8_splitk", OQ * OW, OH, af);
        }
    }
    // back to the pool: later users are queued after these kernels (in-order queue)
    if (splits > 1)
        s.pool->release(part);
    return ret;
}

DEFINE_LAYER_CREATOR(Convolution_opencl)

} // namespace kite
