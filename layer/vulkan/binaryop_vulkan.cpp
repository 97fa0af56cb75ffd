// BinaryOp on Vulkan (shaders/vulkan/binaryop.comp). Broadcasting follows the
// reference exactly: once per pair of input shapes the reference adds element
// numbers of one input to zeros of the other, which gives for every output
// element the input element it reads (index maps kept on the device). Inputs
// of one shape and scalar operands run on any elempack; broadcasting unpacks.
#include "binaryop.h"

#include "vulkan/rearrange_vulkan.h"

#include <memory>

namespace kite {

class BinaryOp_vulkan : public BinaryOp
{
public:
    BinaryOp_vulkan()
    {
        support_vulkan = true;
        support_packing = true;
    }
    bool accept() const override
    {
        return op_type >= Operation_ADD && op_type <= Operation_RDIV && op_type != Operation_POW;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = BinaryOp::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = vkl::pipeline_for(opt, "binaryop", 5, 64);
        dummy = vkl::upload_weights(opt, Mat());
        return pipe && dummy ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        {
            std::lock_guard<std::mutex> g(lock);
            maps.clear();
        }
        dummy.reset();
        return BinaryOp::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const bool scalar = with_scalar != 0 || bottoms.size() == 1;
        std::vector<GpuBlobPtr> in(bottoms);
        if (!scalar)
        {
            const Mat& sa = in[0]->shape;
            const Mat& sb = in[1]->shape;
            const bool same = sa.dims == sb.dims && sa.w == sb.w && sa.h == sb.h && sa.d == sb.d && sa.c == sb.c && sa.elempack == sb.elempack;
            for (int i = 0; i < 2 && !same; i++)
            {
                // broadcasting: the index maps address elempack-1 blobs
                int ret = s.convert_packing(bottoms[i], in[i], 1);
                if (ret != 0)
                    return ret;
            }
        }
        const vk::VkBlob* A = vkl::blob_of(in[0]);
        const vk::VkBlob* B = scalar ? dummy.get() : vkl::blob_of(in[1]);
        const vk::VkBlob* ia = dummy.get();
        const vk::VkBlob* ib = dummy.get();
        Mat oshape = A->shape;
        int mode = scalar ? 2 : 0;
        std::shared_ptr<Maps> m;
        if (!scalar)
        {
            const Mat& sa = A->shape;
            const Mat& sb = B->shape;
            if (sa.dims != sb.dims || sa.w != sb.w || sa.h != sb.h || sa.d != sb.d || sa.c != sb.c)
            {
                m = maps_for(in, s.device());
                if (!m)
                    return -1;
                mode = 1;
                oshape = m->shape;
                ia = m->ia.get();
                ib = m->ib.get();
            }
        }
        vk::VkBlobPtr top = s.create_blob_like(oshape);
        if (!top)
            return -100;
        const int n = (int)top->total();
        struct
        {
            int n, row, mode, op;
            float b;
        } pc = {n, std::min(n, 4096), mode, op_type, b};
        int ret = s.dispatch(pipe, {A, B, ia, ib, top.get()}, &pc, sizeof(pc), pc.row, (n + pc.row - 1) / pc.row, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    struct Maps
    {
        Mat shape;
        vk::VkBlobPtr ia, ib;
    };

    // the index maps of both inputs for this pair of shapes (cached)
    std::shared_ptr<Maps> maps_for(const std::vector<GpuBlobPtr>& bottoms, vk::VulkanDevice* dev) const
    {
        const std::vector<int> key = vkl::shape_key(bottoms);
        {
            std::lock_guard<std::mutex> g(lock);
            auto it = maps.find(key);
            if (it != maps.end())
                return it->second;
        }
        std::unique_ptr<Layer> add(create_layer("BinaryOp"));
        ParamDict pd;
        pd.set(PARAM_OP_TYPE, (int)Operation_ADD);
        if (!add || add->load_param(pd) != 0)
            return nullptr;
        std::shared_ptr<Maps> m = std::make_shared<Maps>();
        for (int side = 0; side < 2; side++)
        {
            std::vector<Mat> in = {vkl::host_like(bottoms[0]->shape), vkl::host_like(bottoms[1]->shape)};
            Mat& numbered = in[side];
            if (numbered.empty() || in[1 - side].empty())
                return nullptr;
            const size_t plane = (size_t)numbered.w * numbered.h * numbered.d;
            if (plane * numbered.c >= (1u << 24))
            {
                KITE_LOGE("BinaryOp '%s': input too large for a float index map", name.c_str());
                return nullptr;
            }
            for (int q = 0; q < numbered.c; q++)
            {
                float* p = numbered.channel(q);
                for (size_t i = 0; i < plane; i++)
                    p[i] = (float)(q * plane + i);
            }
            std::vector<Mat> out(1);
            if (vkl::reference_forward(*add, in, out) != 0 || out[0].empty())
            {
                KITE_LOGE("BinaryOp '%s': the input shapes do not broadcast", name.c_str());
                return nullptr;
            }
            std::vector<float> idx = vkl::device_order(out[0]);
            vk::VkBlobPtr b = dev->upload_constant(out[0], idx.data());
            if (!b)
                return nullptr;
            (side == 0 ? m->ia : m->ib) = b;
            m->shape = gpu_shape_of(out[0]);
        }
        std::lock_guard<std::mutex> g(lock);
        maps[key] = m;
        return m;
    }

    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr dummy;
    mutable std::mutex lock;
    mutable std::map<std::vector<int>, std::shared_ptr<Maps> > maps;
};

DEFINE_LAYER_CREATOR(BinaryOp_vulkan)

} // namespace kite
