// Concat on Vulkan: one box copy (shaders/vulkan/copy_box.comp) per input;
// a packed output when every input is packed (by the smallest of their
// elempacks, 4 or 8), else elempack 1. fp32 inputs (VkBlob::f32, int8
// layers' dequantized outputs under fp16 storage) give an fp32 output where
// every input is fp32 (squeezenet_ssd_int8's fire concats), else the copies
// read them as fp32 into the fp16 output (copy_box.comp's in_f32)
#include "concat.h"

#include <algorithm>

#include "vulkan/vulkan_common.h"

namespace kite {

class Concat_vulkan : public Concat
{
public:
    Concat_vulkan()
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
        bool f32 = true;
        for (const GpuBlobPtr& b : bottoms)
            f32 = f32 && vkl::blob_of(b)->f32;
        const std::vector<GpuBlobPtr>& cast = bottoms;
        // fp32 in, fp32 out: copy_box's fp32 variant
        const vk::Pipeline* copy = f32 ? s.device()->pipeline("copy_box", 2, 8, 8, 1, 0) : pipe;
        if (!copy)
            return -100;
        // all inputs packed: a packed output (elempack ep, the smallest of
        // theirs; an input packed by 8 among ones by 4 is repacked by 4),
        // copies on views whose rows are ep times wider (the lanes of a packed
        // element side by side), so any axis is a box copy; otherwise every
        // input elempack 1
        int ep = 8;
        for (const GpuBlobPtr& b : cast)
            ep = std::min(ep, b->shape.elempack);
        const bool packed = ep > 1;
        std::vector<GpuBlobPtr> in(cast);
        for (size_t i = 0; i < in.size(); i++)
        {
            int ret = s.convert_packing(cast[i], in[i], ep);
            if (ret != 0)
                return ret;
        }
        const Mat& first = in[0]->shape;
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
        for (size_t i = 0; i < in.size(); i++)
        {
            const shape::Dims di = shape::dims_of(in[i]->shape);
            for (int a = 0; a < dims; a++)
            {
                if (in[i]->shape.dims != dims || (a != pa && di.s[a] != d0.s[a]))
                {
                    KITE_LOGE("Concat '%s': input %d does not match input 0 off the concat axis", name.c_str(), (int)i);
                    return -1;
                }
            }
            outd.s[pa] += di.s[pa];
        }
        int cdhw[4];
        shape::to_cdhw(outd, cdhw);
        vk::VkBlobPtr top = s.create_blob(dims, cdhw[3], cdhw[2], cdhw[1], cdhw[0], ep, f32);
        if (!top)
            return -100;
        const GpuBlobPtr topv = packed ? vkl::wide_view(top) : top;
        const int ax = vkl::whdc_axis(dims, pa);
        int offset = 0;
        for (size_t i = 0; i < in.size(); i++)
        {
            const GpuBlobPtr bv = packed ? vkl::wide_view(in[i]) : in[i];
            const vk::VkBlob* b = vkl::blob_of(bv);
            int box[4], src_off[4] = {0, 0, 0, 0}, dst_off[4] = {0, 0, 0, 0};
            vkl::whdc(b->shape, box);
            dst_off[ax] = offset;
            offset += box[ax];
            int ret = vkl::copy_box(s, copy, b, vkl::blob_of(topv), box, src_off, dst_off);
            if (ret != 0)
                return ret;
        }
        // int8 inputs give an int8 blob (as on the CPU)
        top->int8 = true;
        for (const GpuBlobPtr& b : bottoms)
            top->int8 = top->int8 && vkl::blob_of(b)->int8;
        tops[0] = top;
        return 0;
    }

private:
    const vk::Pipeline* pipe = nullptr;
};

DEFINE_LAYER_CREATOR(Concat_vulkan)

} // namespace kite
