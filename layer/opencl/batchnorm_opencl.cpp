// BatchNorm on OpenCL (eltwise.cl channel_affine): x * b + a per channel
// with the reference's folded a_data / b_data as argument images.
#include "batchnorm.h"

#include "gpu/opencl/cl_ops.h"
#include "log.h"

namespace kite {

class BatchNorm_opencl : public BatchNorm
{
public:
    BatchNorm_opencl() { support_opencl = true; }
    int create_pipeline(const Option& opt) override
    {
        int ret = BatchNorm::create_pipeline(opt);
        if (ret != 0)
            return ret;
        w_.ctx = cl::Context::get(opt.opencl_device);
        if (!w_.ctx)
            return -1;
        ret = cl::upload_argument(w_.ctx, (const float*)a_data, channels, w_.add());
        if (ret != 0)
            return ret;
        return cl::upload_argument(w_.ctx, (const float*)b_data, channels, w_.add());
    }
    int destroy_pipeline(const Option& opt) override
    {
        w_.release();
        return BatchNorm::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& gs,
                    const Option& opt) const override
    {
        (void)opt;
        cl::Session& s = cl::session(gs);
        const cl::ClBlob* in = cl::blob(bottoms[0]);
        if (in->C != channels)
        {
            KITE_LOGE("BatchNorm '%s': input has %d channels, the layer %d", name.c_str(), in->C, channels);
            return -1;
        }
        cl::ClBlobPtr out;
        int ret = s.create_blob(in->shape, out);
        if (ret != 0)
            return ret;
        cl_kernel k = s.kernel("eltwise", "channel_affine");
        if (!k)
            return -1;
        cl::KernelArgs a(k);
        a.img(in->image).img(w_.images[0]).img(w_.images[1]).img(out->image).i(in->image.width).i(in->image.height).i(in->W);
        ret = cl::run2d(s, k, "channel_affine", in->image.width, in->image.height, a);
        if (ret == 0)
            tops[0] = out;
        return ret;
    }

private:
    cl::Weights w_;
};

DEFINE_LAYER_CREATOR(BatchNorm_opencl)

} // namespace kite
