// Slice on Vulkan: one box copy (shaders/vulkan/copy_box.comp) per output
#include "slice.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Slice_vulkan : public Slice
{
public:
    Slice_vulkan()
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
        if (bottoms.size() != 1 || tops.empty())
        {
            KITE_LOGE("Slice '%s': expects 1 input and >= 1 output", name.c_str());
            return -1;
        }
        const vk::VkBlob* in = vkl::blob_of(bottoms[0]);
        const int dims = in->shape.dims;
        const int pa = shape::normalize_axis(axis, dims);
        if (pa < 0)
        {
            KITE_LOGE("Slice '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, dims);
            return -1;
        }
        const shape::Dims ind = shape::dims_of(in->shape);
        const int n = (int)tops.size();
        std::vector<int> starts, lens;
        if (resolve_slices(ind.s[pa], n, starts, lens) != 0)
            return -1;
        const int ax = vkl::whdc_axis(dims, pa);
        for (int i = 0; i < n; i++)
        {
            shape::Dims outd = ind;
            outd.s[pa] = lens[i];
            vk::VkBlobPtr top = vkl::create_blob_dims(s, outd);
            if (!top)
                return -100;
            int box[4], src_off[4] = {0, 0, 0, 0}, dst_off[4] = {0, 0, 0, 0};
            vkl::whdc(top->shape, box);
            src_off[ax] = starts[i];
            int ret = vkl::copy_box(s, pipe, in, top.get(), box, src_off, dst_off);
            if (ret != 0)
                return ret;
            tops[i] = top;
        }
        return 0;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(Slice_vulkan)

} // namespace kite
