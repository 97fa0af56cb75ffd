// Softmax on Vulkan (shaders/vulkan/softmax.comp; the innermost axis: softmax_row.comp): any axis
#include "softmax.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Softmax_vulkan : public Softmax
{
public:
    Softmax_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "softmax", 2, 64, 1, 1);
        row = vkl::pipeline_for(opt, "softmax_row", 2, 64, 1, 1);
        return pipe && row ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        const shape::Dims d = shape::dims_of(in);
        const int a = shape::normalize_axis(axis, d.n);
        if (a < 0)
        {
            KITE_LOGE("Softmax '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, d.n);
            return -1;
        }
        int outer = 1, inner = 1;
        for (int i = 0; i < a; i++)
            outer *= d.s[i];
        for (int i = a + 1; i < d.n; i++)
            inner *= d.s[i];
        vk::VkBlobPtr top = s.create_blob_like(in);
        if (!top)
            return -100;
        struct { int outer, n, inner; } pc = {outer, d.s[a], inner};
        // the innermost axis: a work group per line (softmax_row.comp), up to the
        // group count every device allows in x
        const bool by_row = inner == 1 && outer <= 65535;
        int ret = by_row ? s.dispatch(row, {vkl::blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), (uint32_t)outer * 64, 1, 1)
                         : s.dispatch(pipe, {vkl::blob_of(bottoms[0]), top.get()}, &pc, sizeof(pc), inner, outer, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
    const vk::Pipeline* row = nullptr; // softmax_row.comp
};

DEFINE_LAYER_CREATOR(Softmax_vulkan)

} // namespace kite
