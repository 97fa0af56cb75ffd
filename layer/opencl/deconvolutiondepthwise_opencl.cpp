// DeconvolutionDepthWise on OpenCL (conv.cl deconv2d): every group count,
// kernel, stride, dilation, cut and fused activation of the reference (its
// output_geometry) on dims-3 inputs; weights and bias as float buffers.
#include "deconvolutiondepthwise.h"

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "gpu/opencl/cl_ops.h"

namespace kite {

class DeconvolutionDepthWise_opencl : public DeconvolutionDepthWise
{
public:
    DeconvolutionDepthWise_opencl() { support_opencl = true; }
    int create_pipeline(const Option& opt) override
    {
        int ret = DeconvolutionDepthWise::create_pipeline(opt);
        if (ret != 0)
            return ret;
        cl::Context* ctx = cl::Context::get(opt.opencl_device);
        if (!ctx)
            return -1;
        ret = cl::prepare_programs(ctx, opt, {"conv"});
        if (ret != 0)
            return ret;
        std::vector<float> b(num_output, 0.f);
        if (bias_term)
            b.assign((const float*)bias_data, (const float*)bias_data + num_output);
        cl_int err = 0;
        w_ = cl::api()->clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)weight_data_size * sizeof(float),
                                       weight_data.data, &err);
        b_ = cl::api()->clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, b.size() * sizeof(float), b.data(), &err);
        return w_ && b_ ? 0 : -100;
    }
    int destroy_pipeline(const Option& opt) override
    {
        if (w_)
            cl::api()->clReleaseMemObject(w_);
        if (b_)
            cl::api()->clReleaseMemObject(b_);
        w_ = b_ = nullptr;
        return DeconvolutionDepthWise::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const Mat& m = in->shape;
        const int inch_g = weight_data_size / (num_output * kernel_w * kernel_h);
        ConvGeometry g;
        int outw, outh;
        if (m.dims != 3 || m.c != inch_g * group || output_geometry(m.w, m.h, g, &outw, &outh) != 0)
            return cl::run_on_cpu(this, bottoms, tops, s, opt); // the reference runs it (or names the wrong shape)
        cl::ClBlobPtr out;
        int ret = s.create_blob(cl::shape3(outw, outh, num_output), out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("conv", "deconv2d");
        if (!k)
            return -1;
        const Activation act(activation_type, activation_params);
        cl::KernelArgs a(k);
        a.img(in->image).mem(w_).mem(b_).img(out->image).i(m.h).i(m.w).i(num_output).i(outh).i(outw).i(inch_g);
        a.i(num_output / group).i(kernel_w).i(kernel_h).i(dilation_w).i(dilation_h).i(stride_w).i(stride_h);
        a.i(g.pad_left).i(g.pad_top).i(bias_term).i(act.type).f(act.p0).f(act.p1);
        ret = cl::run2d(s, k, "deconv2d", out->image.width, out->image.height, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

private:
    cl_mem w_ = nullptr, b_ = nullptr;
};

DEFINE_LAYER_CREATOR(DeconvolutionDepthWise_opencl)

} // namespace kite
