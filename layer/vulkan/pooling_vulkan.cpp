// Pooling on Vulkan (shaders/vulkan/pooling.comp; global pooling: global_pooling.comp): max/avg, global, every
// pad mode; adaptive pooling stays on the CPU. An fp32 input (VkBlob::f32,
// an int8 layer's dequantized output under fp16 storage) gives an fp32
// output through the shaders' fp32 variants
#include "pooling.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Pooling_vulkan : public Pooling
{
public:
    Pooling_vulkan()
    {
        support_vulkan = true;
        support_packing = true;
    }
    bool accept() const override
    {
        return !p.adaptive_pooling || p.global_pooling;
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "pooling", 2, 8, 8, 1);
        if (p.global_pooling)
            global = vkl::pipeline_for(opt, "global_pooling", 2, 64, 1, 1);
        return pipe && (global || !p.global_pooling) ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        const bool f32 = vkl::blob_of(bottoms[0])->f32;
        if (in.dims != 3 && in.dims != 2)
        {
            KITE_LOGE("Pooling '%s': expects a 3-D (w, h, c) input, got dims %d", name.c_str(), in.dims);
            return -1;
        }
        // c: scalar channels; packed inputs give packed outputs (global: elempack 1)
        const int ip = in.elempack;
        const int w = in.w, h = in.h, c = in.dims == 3 ? in.c * ip : 1;
        struct
        {
            int w, h, c, outw, outh;
            int kw, kh, sw, sh, pl, pt;
            int is_max, exclude_pad;
            int ex_lo_x, ex_hi_x, ex_lo_y, ex_hi_y;
            int ip, op;
        } pc;
        vk::VkBlobPtr top;
        if (p.global_pooling)
        {
            // global_pooling.comp: one work group of 64 per channel
            top = s.create_blob(1, c, 1, 1, 1, 1, f32);
            const vk::Pipeline* gp = f32 ? s.device()->pipeline("global_pooling", 2, 64, 1, 1, 0) : global;
            if (!top || !gp)
                return -100;
            struct
            {
                int plane, c, ip, is_max;
            } pg = {w * h, c, ip, p.pooling_type == 0};
            int ret = s.dispatch(gp, {vkl::blob_of(bottoms[0]), top.get()}, &pg, sizeof(pg), (uint32_t)c * 64, 1, 1);
            if (ret == 0)
                tops[0] = top;
            return ret;
        }
        else
        {
            const PoolingAxisPlan ax = pooling_plan_axis(p, 0, w);
            const PoolingAxisPlan ay = pooling_plan_axis(p, 1, h);
            if (ax.padded < p.kernel[0] || ay.padded < p.kernel[1])
            {
                KITE_LOGE("Pooling '%s': input %d x %d with padding is smaller than the kernel", name.c_str(), w, h);
                return -1;
            }
            const bool is_max = p.pooling_type == 0;
            pc = {w, h, c, ax.out, ay.out, p.kernel[0], p.kernel[1], p.stride[0], p.stride[1], ax.lo, ay.lo,
                  is_max, !is_max && !p.avgpool_count_include_pad, ax.ex_lo, ax.ex_hi, ay.ex_lo, ay.ex_hi, ip, ip};
            top = s.create_blob(3, ax.out, ay.out, 1, c / ip, ip, f32);
        }
        const vk::Pipeline* pp = f32 ? s.device()->pipeline("pooling", 2, 8, 8, 1, 0) : pipe;
        if (!top || !pp)
            return -100;
        int ret = s.dispatch(pp, {vkl::blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), pc.outw, pc.outh, c);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
    const vk::Pipeline* global = nullptr; // global_pooling.comp
};

DEFINE_LAYER_CREATOR(Pooling_vulkan)

} // namespace kite
