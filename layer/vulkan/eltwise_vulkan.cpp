// Eltwise on Vulkan (shaders/vulkan/eltwise.comp): inputs folded in pairs
#include "eltwise.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Eltwise_vulkan : public Eltwise
{
public:
    Eltwise_vulkan()
    {
        support_vulkan = true;
        support_packing = true; // element-wise over inputs of one layout
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "eltwise", 3, 64);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const int n = (int)bottoms.size();
        const Mat& first = bottoms[0]->shape;
        const bool weighted = op_type == Operation_SUM && coeffs.w > 0;
        if (weighted && coeffs.w < n)
        {
            KITE_LOGE("Eltwise '%s': %d coeffs for %d inputs", name.c_str(), coeffs.w, n);
            return -1;
        }
        for (int i = 1; i < n; i++)
        {
            const Mat& m = bottoms[i]->shape;
            if (m.dims != first.dims || m.w != first.w || m.h != first.h || m.d != first.d || m.c != first.c || m.elempack != first.elempack)
            {
                KITE_LOGE("Eltwise '%s': input %d has another shape than input 0", name.c_str(), i);
                return -1;
            }
        }
        const float* cf = weighted ? (const float*)coeffs.data : nullptr;
        if (n == 1)
        {
            // a single input: copy (scaled)
            vk::VkBlobPtr top = s.create_blob_like(first);
            if (!top)
                return -100;
            struct { int n, op; float ca, cb; int use4; } pc = {(int)top->total(), 1, cf ? cf[0] : 1.f, 0.f, top->total() % 4 == 0};
            int ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), vkl::blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), pc.use4 ? pc.n / 4 : pc.n, 1, 1);
            if (ret == 0)
                tops[0] = top;
            return ret;
        }
        GpuBlobPtr acc = bottoms[0];
        for (int i = 1; i < n; i++)
        {
            vk::VkBlobPtr top = s.create_blob_like(first);
            if (!top)
                return -100;
            struct { int n, op; float ca, cb; int use4; } pc = {(int)top->total(), op_type, (cf && i == 1) ? cf[0] : 1.f, cf ? cf[i] : 1.f,
                                                                top->total() % 4 == 0};
            int ret = s.dispatch(pipe, {vkl::blob_of(acc), vkl::blob_of(bottoms[i]), top.get()}, &pc, sizeof(pc), pc.use4 ? pc.n / 4 : pc.n, 1, 1);
            if (ret != 0)
                return ret;
            acc = top;
        }
        tops[0] = acc;
        return 0;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(Eltwise_vulkan)

} // namespace kite
