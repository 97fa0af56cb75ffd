#ifndef KITE_LAYER_VULKAN_UNARY_VULKAN_H
#define KITE_LAYER_VULKAN_UNARY_VULKAN_H

// Element-wise activation layers on Vulkan: one driver template over the
// reference class; `Params` gives the activation code of
// shaders/vulkan/activation.h and its two parameters.

#include "vulkan/vulkan_common.h"

namespace kite {
namespace vkl {

// record out = activate(in) for a whole blob
inline int unary_forward(const vk::Pipeline* pipe, int type, float p0, float p1, const std::vector<GpuBlobPtr>& bottoms,
                         std::vector<GpuBlobPtr>& tops, GpuSession& session)
{
    vk::Session& s = session_of(session);
    vk::VkBlobPtr top = s.create_blob_like(bottoms[0]->shape);
    if (!top)
        return -100;
    struct
    {
        int n, type;
        float p0, p1;
        int use4;
    } pc = {(int)top->total(), type, p0, p1, top->total() % 4 == 0};
    int ret = s.dispatch(pipe, {blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), pc.use4 ? pc.n / 4 : pc.n, 1, 1);
    if (ret == 0)
        tops[0] = top;
    return ret;
}

template <class Base>
class UnaryVulkan : public Base
{
public:
    UnaryVulkan()
    {
        this->support_vulkan = true;
        this->support_packing = true; // element-wise: any layout
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = Base::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = pipeline_for(opt, "unary", 2, 64);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& s, const Option&) const override
    {
        int type;
        float p0, p1;
        params(type, p0, p1);
        return unary_forward(pipe, type, p0, p1, bottoms, tops, s);
    }

protected:
    virtual void params(int& type, float& p0, float& p1) const = 0;
    const vk::Pipeline* pipe = nullptr;
};

} // namespace vkl
} // namespace kite

#endif // KITE_LAYER_VULKAN_UNARY_VULKAN_H
