// Concat on Vulkan: one box copy (shaders/vulkan/copy_box.comp) per input
#include "concat.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Concat_vulkan : public Concat
{
public:
    Concat_vulkan()
    {
        support_vulkan = true;
    }
    int create_pipeline(const Option& opt) override
    {
        pipe = vkl::pipeline_for(opt, "copy_box", 2, 8, 8, 1);
        return pipe ? 0 : -1;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& first = bottoms[0]->shape;
        const int dims = first.dims;
        const int pa = shape::normalize_axis(axis, dims);
        if (pa < 0)
        {
            KITE_LOGE("Concat '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, dims);
            return -1;
        }
        const shape::Dims d0 = shape::dims_of(first);
        shape::Dims outd = d0;
        outd.s[pa] = 0;
        for (size_t i = 0; i < bottoms.size(); i++)
        {
            const shape::Dims di = shape::dims_of(bottoms[i]->shape);
            for (int a = 0; a < dims; a++)
            {
                if (bottoms[i]->shape.dims != dims || (a != pa && di.s[a] != d0.s[a]))
                {
                    KITE_LOGE("Concat '%s': input %d does not match input 0 off the concat axis", name.c_str(), (int)i);
                    return -1;
                }
            }
            outd.s[pa] += di.s[pa];
        }
        vk::VkBlobPtr top = vkl::create_blob_dims(s, outd);
        if (!top)
            return -100;
        const int ax = vkl::whdc_axis(dims, pa);
        int offset = 0;
        for (size_t i = 0; i < bottoms.size(); i++)
        {
            const vk::VkBlob* b = vkl::blob_of(bottoms[i]);
            int box[4], src_off[4] = {0, 0, 0, 0}, dst_off[4] = {0, 0, 0, 0};
            vkl::whdc(b->shape, box);
            dst_off[ax] = offset;
            offset += box[ax];
            int ret = vkl::copy_box(s, pipe, b, top.get(), box, src_off, dst_off);
            if (ret != 0)
                return ret;
        }
        tops[0] = top;
        return 0;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(Concat_vulkan)

} // namespace kite
