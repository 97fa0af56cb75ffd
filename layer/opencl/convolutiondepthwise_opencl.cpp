// Depth-wise convolution (group == channels == num_output, multiplier 1) on
// OpenCL images, the filter in the seeds' depth-wise layout; other groupings
// (grouped convolution, depth multipliers) run with float weight buffers:
// conv2d_grouped4 (4 output channels x 4 pixels a work item) where every
// group has a multiple of 4 output channels, conv2d_grouped otherwise or
// with KITE_OPENCL_CONV=legacy (int8 ones run on the CPU). int8 layers run dwconv2d_int8 (int8.cl)
// with the CPU's int8 arithmetic.
#include "convolutiondepthwise.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"
#include "gpu/opencl/cl_ops.h"
#include "log.h"

#include <cstdlib>
#include <cstring>

namespace kite {

class ConvolutionDepthWise_opencl : public ConvolutionDepthWise
{
public:
    ConvolutionDepthWise_opencl() { support_opencl = true; }
    bool accept() const override
    {
        return dynamic_weight == 0 && kernel_w > 0 && kernel_h > 0 && group > 0 && num_output % group == 0;
    }
    ~ConvolutionDepthWise_opencl() override { release_grouped(); }
    int create_pipeline(const Option& opt) override
    {
        int ret = ConvolutionDepthWise::create_pipeline(opt);
        if (ret != 0)
            return ret;
        w_.ctx = cl::Context::get(opt.opencl_device);
        if (!w_.ctx)
            return -1;
        int8_ = weight_data.elemsize == 1u;
        ret = cl::prepare_programs(w_.ctx, opt, {int8_ ? "int8" : "conv"});
        if (ret != 0)
            return ret;
        depthwise_ = group == num_output && weight_data_size == num_output * kernel_w * kernel_h;
        if (!depthwise_)
            return int8_ ? 0 : upload_grouped(); // grouped int8 runs on the CPU
        if (int8_)
            return upload_int8(opt);
        // a half image with fp16 storage (half the bytes; read_imagef converts)
        ret = cl::upload_seed_layout(w_.ctx, cl::SEED_DW_FILTER, weight_data, (size_t)weight_data_size, num_output,
                                     kernel_h, kernel_w, 1, opt.use_fp16_storage, w_.add());
        if (ret != 0)
            return ret;
        return cl::upload_argument(w_.ctx, bias_term ? (const float*)bias_data : nullptr, num_output, w_.add());
    }
    int destroy_pipeline(const Option& opt) override
    {
        w_.release();
        release_grouped();
        return ConvolutionDepthWise::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const bool grouped = !depthwise_;
        if (in->dims() != 3 || (!grouped && in->C != num_output) || (grouped && (int8_ || in->C % group != 0)))
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        const int extents[2] = {conv_kernel_extent(kernel_w, dilation_w), conv_kernel_extent(kernel_h, dilation_h)};
        int pads[4];
        resolve_pads_2d(in->W, in->H, pads);
        const int OW = (in->W + pads[0] + pads[1] - extents[0]) / stride_w + 1;
        const int OH = (in->H + pads[2] + pads[3] - extents[1]) / stride_h + 1;
        if (OW <= 0 || OH <= 0)
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input %d x %d is smaller than the kernel", name.c_str(), in->W, in->H);
            return -1;
        }
        cl::ClBlobPtr out;
        int ret = s.create_blob(cl::shape3(OW, OH, num_output), out);
        if (ret != 0)
            return ret;
        const Activation act(activation_type, activation_params);
        if (grouped)
        {
            ret = forward_grouped_gpu(in, OW, OH, pads, act, s, out);
            if (ret != 0)
                return ret;
            tops[0] = out;
            return 0;
        }
        if (int8_)
        {
            ret = forward_int8_gpu(in, OW, OH, pads, s, out);
            if (ret != 0)
                return ret;
            tops[0] = out;
            return 0;
        }
        // a put-off constant Padding of the plane before it (BlazeFace): its
        // input read with the padding added to this one's (same value, or
        // none of its own), and the Padding never runs
        const cl::ClBlob* src = in;
        int pl = pads[0], pt = pads[2];
        float pv = pad_value;
        const cl::ClBlob* ps = in->pad_src.get();
        if (cl::pending(in) && ps && ps->C == in->C && ps->image.width == ps->W * cl::div4(ps->C) &&
            ps->image.height == ps->H && cl::fusion_on("KITE_OPENCL_FUSE_PAD"))
        {
            const bool own = pads[0] != 0 || pads[1] != 0 || pads[2] != 0 || pads[3] != 0;
            if (!own || in->pad_value == pad_value)
            {
                src = ps;
                in->deferred->read_through = true;
                pl += in->pad_left;
                pt += in->pad_top;
                pv = in->pad_value;
            }
        }
        std::shared_ptr<cl::DwLaunch> dl = std::make_shared<cl::DwLaunch>();
        dl->src = src == in ? std::static_pointer_cast<cl::ClBlob>(bottoms[0]) : in->pad_src;
        dl->filt = w_.images[0];
        dl->bias = w_.images[1];
        dl->C = src->C;
        dl->OW = OW;
        dl->OH = OH;
        dl->kw = kernel_w;
        dl->kh = kernel_h;
        dl->sw = stride_w;
        dl->sh = stride_h;
        dl->dw = dilation_w;
        dl->dh = dilation_h;
        dl->pl = pl;
        dl->pt = pt;
        dl->pad_value = pv;
        dl->has_bias = bias_term;
        dl->act = act.type;
        dl->p0 = act.p0;
        dl->p1 = act.p1;
        cl::Session* sp = &s;
        const cl::Image dst = out->image;
        auto run = [sp, dl, dst]() {
            cl_kernel k = sp->kernel("conv", "dwconv2d");
            if (!k)
                return -1;
            cl::KernelArgs a(k);
            a.img(dl->src->image).img(dl->filt).img(dl->bias).img(dst).i(dl->C).i(dl->src->H).i(dl->src->W).i(dl->OH).i(dl->OW);
            a.i(dl->kw).i(dl->kh).i(dl->sw).i(dl->sh).i(dl->dw).i(dl->dh).i(dl->pl).i(dl->pt).f(dl->pad_value);
            a.i(dl->has_bias).i(dl->act).f(dl->p0).f(dl->p1);
            return cl::run2d(*sp, k, "dwconv2d", dl->OW * cl::div4(dl->C), dl->OH, a);
        };
        // put off: a 1x1 convolution after it on a small map runs it in its
        // launch (ClBlob::dw_launch). Only with KITE_OPENCL_FUSE_DWPW=1 (slower on
        // a GPU, see cl_runtime.h)
        if (cl::fusion_opted_in("KITE_OPENCL_FUSE_DWPW"))
        {
            out->dw_launch = dl;
            s.defer(*out, run);
        }
        else if ((ret = run()) != 0)
            return ret;
        tops[0] = out;
        return 0;
    }

private:
    int upload_grouped()
    {
        std::vector<float> b(num_output, 0.f);
        if (bias_term)
            b.assign((const float*)bias_data, (const float*)bias_data + num_output);
        cl_int err = 0;
        gw_ = cl::api()->clCreateBuffer(w_.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                        (size_t)weight_data_size * sizeof(float), weight_data.data, &err);
        gb_ = cl::api()->clCreateBuffer(w_.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(float),
                                        b.data(), &err);
        if (!gw_ || !gb_)
            return -100;
        // conv2d_grouped4's order: [oq][ic of the group][tap] float4 of the
        // quad's 4 output channels
        const int taps = kernel_w * kernel_h, outch_g = num_output / group;
        const int inch_g = weight_data_size / (num_output * taps);
        if (outch_g % 4 != 0 || inch_g <= 0)
            return 0;
        const float* wsrc = (const float*)weight_data.data;
        std::vector<float> w4((size_t)weight_data_size);
        for (int oc = 0; oc < num_output; oc++)
            for (int ic = 0; ic < inch_g; ic++)
                for (int t = 0; t < taps; t++)
                    w4[(((size_t)(oc / 4) * inch_g + ic) * taps + t) * 4 + oc % 4] = wsrc[((size_t)oc * inch_g + ic) * taps + t];
        gw4_ = cl::api()->clCreateBuffer(w_.ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w4.size() * sizeof(float),
                                         w4.data(), &err);
        return gw4_ ? 0 : -100;
    }
    void release_grouped()
    {
        if (gw_)
            cl::api()->clReleaseMemObject(gw_);
        if (gb_)
            cl::api()->clReleaseMemObject(gb_);
        if (gw4_)
            cl::api()->clReleaseMemObject(gw4_);
        gw_ = gb_ = gw4_ = nullptr;
    }
    int forward_grouped_gpu(const cl::ClBlob* in, int OW, int OH, const int* pads, const Activation& act, cl::Session& s,
                            cl::ClBlobPtr& out) const
    {
        const int inch_g = in->C / group;
        // weights [num_output][channels / group][kh][kw]
        if ((long long)inch_g * num_output * kernel_w * kernel_h != weight_data_size)
        {
            KITE_LOGE("ConvolutionDepthWise '%s': input has %d channels, the weights expect %d", name.c_str(), in->C,
                      weight_data_size / (num_output * kernel_w * kernel_h) * group);
            return -1;
        }
        const char* legacy = getenv("KITE_OPENCL_CONV");
        const bool blocked = gw4_ && !(legacy && strcmp(legacy, "legacy") == 0);
        const char* kname = blocked ? "conv2d_grouped4" : "conv2d_grouped";
        cl_kernel k = s.kernel("conv", kname);
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).mem(blocked ? gw4_ : gw_).mem(gb_).img(out->image).i(in->H).i(in->W).i(num_output).i(OH).i(OW).i(inch_g);
        a.i(num_output / group).i(kernel_w).i(kernel_h).i(dilation_w).i(dilation_h).i(stride_w).i(stride_h);
        a.i(pads[0]).i(pads[2]).f(pad_value).i(bias_term).i(act.type).f(act.p0).f(act.p1);
        return cl::run2d(s, k, kname, (blocked ? cl::div4(OW) : OW) * cl::div4(num_output), OH, a);
    }
    int upload_int8(const Option& opt)
    {
        int ret = cl::upload_seed_layout_int8(w_.ctx, cl::SEED_DW_FILTER, (const signed char*)weight_data.data,
                                              (size_t)weight_data_size, num_output, kernel_h, kernel_w, 1, w_.add());
        if (ret != 0)
            return ret;
        // the scales and numerics of ConvolutionDepthWise::forward_int8 (one
        // channel per group here), including its choice of the approximate
        // reciprocal for the packed x86 kernel
        const bool packed_dw = opt.use_packing_layout && num_output % 8 == 0;
        numerics_ = packed_dw ? 2 : 0;
        std::vector<float> scale_in(num_output), scale_out(num_output);
        for (int p = 0; p < num_output; p++)
        {
            scale_in[p] = packed_dw ? int8_dequant_scale_rcp(bottom_blob_int8_scales[p], weight_data_int8_scales[p])
                                    : int8_dequant_scale(bottom_blob_int8_scales[p], weight_data_int8_scales[p]);
            scale_out[p] = int8_scale_term > 100 ? top_blob_int8_scales[p] : 1.f;
        }
        return cl::upload_int8_arguments(w_.ctx, num_output, bias_term ? (const float*)bias_data : nullptr,
                                         scale_in.data(), scale_out.data(), bottom_blob_int8_scales, w_.add());
    }
    int forward_int8_gpu(const cl::ClBlob* in, int OW, int OH, const int* pads, cl::Session& s, cl::ClBlobPtr& out) const
    {
        cl_kernel k = s.kernel("int8", "dwconv2d_int8");
        if (!k)
            return -1;
        const Activation act(activation_type, activation_params);
        const bool requant = int8_scale_term > 100;
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image).i(in->C).i(in->H).i(in->W).i(OH).i(OW);
        a.i(kernel_w).i(kernel_h).i(stride_w).i(stride_h).i(dilation_w).i(dilation_h).i(pads[0]).i(pads[2]);
        a.f((float)pad_value_int8(pad_value)).i(in->int8).i(bias_term).i(numerics_).i(requant);
        a.i(act.type).f(act.p0).f(act.p1);
        int ret = cl::run2d(s, k, "dwconv2d_int8", OW * cl::div4(num_output), OH, a);
        out->int8 = requant;
        return ret;
    }

    cl::Weights w_;
    cl_mem gw_ = nullptr, gb_ = nullptr;
    cl_mem gw4_ = nullptr; // conv2d_grouped4's weights (groups of 4k output channels)
    bool depthwise_ = true;
    bool int8_ = false;
    int numerics_ = 0;
};

DEFINE_LAYER_CREATOR(ConvolutionDepthWise_opencl)

} // namespace kite
