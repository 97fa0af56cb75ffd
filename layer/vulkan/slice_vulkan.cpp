// Slice on Vulkan: one box copy (shaders/vulkan/copy_box.comp) per output;
// a packed input (elempack 4 or 8) stays packed unless a channel slice splits
// a packed group (by 8: repacked by 4 where that fits the slices, else unpacked)
#include "slice.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class Slice_vulkan : public Slice
{
public:
    Slice_vulkan()
    {
        support_vulkan = true;
        support_packing = true;
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
        GpuBlobPtr src = bottoms[0];
        const int dims = src->shape.dims;
        const int pa = shape::normalize_axis(axis, dims);
        if (pa < 0)
        {
            KITE_LOGE("Slice '%s': axis %d out of range for a %d-dims input", name.c_str(), axis, dims);
            return -1;
        }
        const int ax = vkl::whdc_axis(dims, pa);
        int ep = src->shape.elempack;
        shape::Dims ind = shape::dims_of(src->shape); // channels in groups of ep
        const int n = (int)tops.size();
        std::vector<int> starts, lens;
        if (resolve_slices(ind.s[pa] * (ax == 3 ? ep : 1), n, starts, lens) != 0)
            return -1;
        // the largest elempack (ep, 4, 1) that no channel slice splits
        int keep = ep;
        for (; keep > 1; keep /= 2)
        {
            bool fits = keep != 2;
            for (int i = 0; i < n && fits && ax == 3; i++)
                fits = starts[i] % keep == 0 && lens[i] % keep == 0;
            if (fits)
                break;
        }
        if (keep != ep)
        {
            int ret = s.convert_packing(bottoms[0], src, keep);
            if (ret != 0)
                return ret;
            ep = keep;
            ind = shape::dims_of(src->shape);
        }
        const int unit = ax == 3 ? ep : 1; // scalar channels per channel unit
        // packed: copies on views whose rows are ep times wider (lanes side by side)
        const GpuBlobPtr srcv = ep != 1 ? vkl::wide_view(src) : src;
        for (int i = 0; i < n; i++)
        {
            shape::Dims outd = ind;
            outd.s[pa] = lens[i] / unit;
            int cdhw[4];
            shape::to_cdhw(outd, cdhw);
            vk::VkBlobPtr top = s.create_blob(dims, cdhw[3], cdhw[2], cdhw[1], cdhw[0], ep);
            if (!top)
                return -100;
            const GpuBlobPtr topv = ep != 1 ? vkl::wide_view(top) : top;
            int box[4], src_off[4] = {0, 0, 0, 0}, dst_off[4] = {0, 0, 0, 0};
            vkl::whdc(topv->shape, box);
            src_off[ax] = starts[i] / unit * (ax == 0 ? ep : 1);
            int ret = vkl::copy_box(s, pipe, vkl::blob_of(srcv), vkl::blob_of(topv), box, src_off, dst_off);
            if (ret != 0)
                return ret;
            top->int8 = vkl::blob_of(bottoms[0])->int8;
            tops[i] = top;
        }
        return 0;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(Slice_vulkan)

} // namespace kite
