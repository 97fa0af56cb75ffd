// Reduction on Vulkan (shaders/vulkan/reduction.comp): every operation, axis
// set and keepdims of the reference, one invocation per output element over
// an elempack-1 copy of the input.
#include "reduction.h"

#include "gpu/reduction_plan.h"
#include "vulkan/vulkan_common.h"

namespace kite {

class Reduction_vulkan : public Reduction
{
public:
    Reduction_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = Reduction::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = vkl::pipeline_for(opt, "reduction", 2, 64);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        GpuBlobPtr in = bottoms[0];
        if (in->shape.elempack != 1)
        {
            int ret = s.convert_packing(bottoms[0], in, 1);
            if (ret != 0)
                return ret;
        }
        ReductionPlan plan;
        if (reduction_plan(*this, in->shape, plan) != 0)
            return -1;
        const Mat& o = plan.out;
        vk::VkBlobPtr top = s.create_blob(o.dims, o.w, o.h, o.d, o.c);
        if (!top)
            return -100;
        struct
        {
            int ext[4];
            int red[4];
            int n, rcount, op;
            float coeff;
        } pc;
        for (int i = 0; i < 4; i++)
        {
            pc.ext[i] = plan.ext[i];
            pc.red[i] = plan.red[i];
        }
        pc.n = plan.nout;
        pc.rcount = plan.rcount;
        pc.op = operation;
        pc.coeff = coeff;
        int ret = s.dispatch(pipe, {vkl::blob_of(in), top.get()}, &pc, sizeof(pc), plan.nout, 1, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(Reduction_vulkan)

} // namespace kite
