// InnerProduct on OpenCL images: weights in the conv-filter layout
// ([num_input, (num_output+3)/4], 1x1 taps), or where num_input exceeds the
// device's image width in the width-major one ([(num_input+3)/4, num_output],
// innerproduct_wide). The row mode (dims-2 input of w == num_input, a
// transformer's Linear over its tokens) runs innerproduct_rows on the
// conv-filter image; with int8 or wide weights it runs on the CPU.
// int8 layers run innerproduct_int8 / innerproduct_wide_int8 (int8.cl) with
// the CPU's int8 arithmetic; all four kernels reduce in work groups of 64.
#include "innerproduct.h"

#include "common/activation.h"
#include "common/int8.h"
#include "gpu/opencl/cl_ops.h"
#include "log.h"

namespace kite {

class InnerProduct_opencl : public InnerProduct
{
public:
    InnerProduct_opencl() { support_opencl = true; }
        int create_pipeline(const Option& opt) override
    {
        int ret = InnerProduct::create_pipeline(opt);
        if (ret != 0)
            return ret;
        w_.ctx = cl::Context::get(opt.opencl_device);
        if (!w_.ctx)
            return -1;
        num_input_ = weight_data_size / num_output;
        // the conv-filter image is num_input wide: wider ones take the
        // width-major layout ((num_input + 3) / 4 wide, num_output high)
        wide_ = (size_t)num_input_ > w_.ctx->image_max_w;
        if (wide_ && ((size_t)cl::div4(num_input_) > w_.ctx->image_max_w || (size_t)num_output > w_.ctx->image_max_h))
            return 0; // forward runs on the CPU
        int8_ = weight_data.elemsize == 1u;
        ret = cl::prepare_programs(w_.ctx, opt, {int8_ ? "int8" : "conv"});
        if (ret != 0)
            return ret;
        if (int8_)
        {
            // int8 images (a quarter of the bytes of float ones): the
            // width-major layout of upload_linear_weights, or the conv filter
            const signed char* wq = (const signed char*)weight_data.data;
            if (wide_)
                ret = cl::upload_seed_layout_int8(w_.ctx, cl::SEED_WIDTH_MAJOR, wq, (size_t)weight_data_size, 1, num_output,
                                                  num_input_, 1, w_.add());
            else
                ret = cl::upload_seed_layout_int8(w_.ctx, cl::SEED_CONV_FILTER, wq, (size_t)weight_data_size, num_output,
                                                  num_input_, 1, 1, w_.add());
            if (ret != 0)
                return ret;
            std::vector<float> scale_in(num_output);
            for (int p = 0; p < num_output; p++)
                scale_in[p] = int8_dequant_scale(bottom_blob_int8_scales[0], weight_data_int8_scales[p]);
            return cl::upload_int8_arguments(w_.ctx, num_output, bias_term ? (const float*)bias_data : nullptr,
                                             scale_in.data(), nullptr, nullptr, w_.add());
        }
        // half images with fp16 storage (half the bytes; read_imagef converts)
        if (wide_)
            ret = cl::upload_linear_weights(w_.ctx, weight_data, num_output, num_input_, w_.add(), opt.use_fp16_storage);
        else
            ret = cl::upload_seed_layout(w_.ctx, cl::SEED_CONV_FILTER, weight_data, (size_t)weight_data_size, num_output,
                                         num_input_, 1, 1, opt.use_fp16_storage, w_.add());
        if (ret != 0)
            return ret;
        return cl::upload_argument(w_.ctx, bias_term ? (const float*)bias_data : nullptr, num_output, w_.add());
    }
    int destroy_pipeline(const Option& opt) override
    {
        w_.release();
        return InnerProduct::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        const bool row_mode = in->dims() == 2 && in->shape.w == num_input_;
        if (row_mode && !w_.images.empty() && !wide_ && !int8_)
            return forward_rows(s, in, tops);
        if (w_.images.empty() || row_mode || in->C * in->H * in->W != num_input_)
            return cl::run_on_cpu(this, bottoms, tops, s, opt);
        cl::ClBlobPtr out;
        int ret = s.create_blob(cl::shape1(num_output), out);
        if (ret != 0)
            return ret;
        const Activation act(activation_type, activation_params);
        const char* kname = wide_ ? (int8_ ? "innerproduct_wide_int8" : "innerproduct_wide")
                                  : (int8_ ? "innerproduct_int8" : "innerproduct");
        cl_kernel k = s.kernel(int8_ ? "int8" : "conv", kname);
        if (!k)
            return -1;
        const int OB = cl::div4(num_output);
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image);
        if (wide_)
            a.i(in->H).i(in->W).i(num_input_).i(num_output);
        else
            a.i(in->C).i(in->H).i(in->W).i(OB);
        if (int8_) // InnerProduct::forward: sum * scale_in, then + bias
            a.i(in->int8).f(bottom_blob_int8_scales[0]).i(bias_term).i(0);
        else
            a.i(bias_term);
        a.i(act.type).f(act.p0).f(act.p1);
        // every kernel reduces in work groups of 64 per 4 outputs
        ret = cl::run_groups64(s, k, kname, OB, a);
        if (ret != 0)
            return ret;
        tops[0] = out;
        return 0;
    }

private:
    // rows x num_output = rows x num_input times the weights (innerproduct_rows)
    int forward_rows(cl::Session& s, const cl::ClBlob* in, std::vector<GpuBlobPtr>& tops) const
    {
        const int rows = in->shape.h;
        cl::ClBlobPtr out;
        int ret = s.create_blob(cl::shape2(num_output, rows), out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("conv", "innerproduct_rows");
        if (!k)
            return -1;
        const Activation act(activation_type, activation_params);
        const int RB = cl::div4(rows), OB = cl::div4(num_output);
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image);
        a.i(RB).i(num_input_).i(OB).i(num_output).i(bias_term).i(act.type).f(act.p0).f(act.p1);
        ret = cl::run2d(s, k, "innerproduct_rows", RB, OB, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

    cl::Weights w_;
    int num_input_ = 0;
    bool wide_ = false; // weights in the width-major layout (innerproduct_wide)
    bool int8_ = false;
};

DEFINE_LAYER_CREATOR(InnerProduct_opencl)

} // namespace kite
