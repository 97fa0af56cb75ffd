// Interp on Vulkan: nearest resizing only rearranges the input, so it runs as
// an index map from the reference (shaders/vulkan/gather.comp); bilinear and
// bicubic run shaders/vulkan/interp.comp with the reference's taps
// (layer/gpu/interp_plan.h), kept on the device per input shape.
#include "interp.h"

#include "gpu/interp_plan.h"
#include "vulkan/rearrange_vulkan.h"

namespace kite {

class Interp_vulkan : public vkl::GatherVulkan<Interp>
{
public:
    int create_pipeline(const Option& opt) override
    {
        int ret = vkl::GatherVulkan<Interp>::create_pipeline(opt);
        if (ret != 0)
            return ret;
        taps_pipe = vkl::pipeline_for(opt, "interp", 3, 8, 8, 1);
        return taps_pipe ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        {
            std::lock_guard<std::mutex> g(taps_lock);
            taps.clear();
        }
        return vkl::GatherVulkan<Interp>::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option& opt) const override
    {
        if (resize_type == RESIZE_NEAREST)
            return vkl::GatherVulkan<Interp>::forward_gpu(bottoms, tops, session, opt);
        vk::Session& s = vkl::session_of(session);
        if (bottoms.empty() || tops.size() != 1 || (dynamic_target_size && bottoms.size() < 2))
        {
            KITE_LOGE("Interp '%s': expects %d inputs and 1 output", name.c_str(), dynamic_target_size ? 2 : 1);
            return -1;
        }
        GpuBlobPtr in = bottoms[0];
        if (in->shape.elempack != 1)
        {
            int ret = s.convert_packing(bottoms[0], in, 1);
            if (ret != 0)
                return ret;
        }
        Mat ref;
        if (dynamic_target_size)
            ref = bottoms[1]->shape;
        const std::vector<int> key = vkl::shape_key(dynamic_target_size ? bottoms : std::vector<GpuBlobPtr>(1, bottoms[0]));
        std::shared_ptr<Taps> t;
        {
            std::lock_guard<std::mutex> g(taps_lock);
            auto it = taps.find(key);
            if (it != taps.end())
                t = it->second;
        }
        if (!t)
        {
            t = std::make_shared<Taps>();
            if (interp_plan(*this, in->shape, dynamic_target_size ? &ref : nullptr, t->plan) != 0)
                return -1;
            t->buf = s.device()->upload_constant(Mat((int)t->plan.taps.size(), (void*)nullptr), t->plan.taps.data());
            if (!t->buf)
                return -100;
            std::lock_guard<std::mutex> g(taps_lock);
            taps[key] = t;
        }
        const InterpPlan& p = t->plan;
        vk::VkBlobPtr top = s.create_blob(p.out.dims, p.out.w, p.out.h, 1, p.out.c);
        if (!top)
            return -100;
        struct
        {
            int C, H, W, OH, OW, ntx, nty;
        } pc = {p.C, p.H, p.W, p.OH, p.OW, p.ntx, p.nty};
        int ret = s.dispatch(taps_pipe, {vkl::blob_of(in), t->buf.get(), top.get()}, &pc, sizeof(pc), p.OW, p.OH, p.C);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    struct Taps
    {
        InterpPlan plan;
        vk::VkBlobPtr buf;
    };
    const vk::Pipeline* taps_pipe = nullptr;
    mutable std::mutex taps_lock;
    mutable std::map<std::vector<int>, std::shared_ptr<Taps> > taps;
};

DEFINE_LAYER_CREATOR(Interp_vulkan)

} // namespace kite
