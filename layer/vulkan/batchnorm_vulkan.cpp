// BatchNorm on Vulkan (shaders/vulkan/channel_affine.comp): x * b + a per
// channel (the reference's folded a_data / b_data), on any elempack.
#include "batchnorm.h"

#include "vulkan/vulkan_common.h"

namespace kite {

class BatchNorm_vulkan : public BatchNorm
{
public:
    BatchNorm_vulkan()
    {
        support_vulkan = true;
        support_packing = true;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = BatchNorm::create_pipeline(opt);
        if (ret != 0)
            return ret;
        pipe = vkl::pipeline_for(opt, "channel_affine", 4, 64);
        a = vkl::upload_weights(opt, a_data);
        b = vkl::upload_weights(opt, b_data);
        return pipe && a && b ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        a.reset();
        b.reset();
        return BatchNorm::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& m = bottoms[0]->shape;
        const int nch = (m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c) * m.elempack;
        if (nch != channels)
        {
            KITE_LOGE("BatchNorm '%s': input has %d channels, the layer %d", name.c_str(), nch, channels);
            return -1;
        }
        vk::VkBlobPtr top = s.create_blob_like(m);
        if (!top)
            return -100;
        // an fp32 input (VkBlob::f32) is read as such, the output is the
        // session's storage type
        struct
        {
            int n, plane, pack, in_f32;
        } pc = {(int)top->total(), m.dims == 1 ? 1 : m.dims == 2 ? m.w : m.w * m.h * m.d, m.elempack,
                vkl::blob_of(bottoms[0])->f32 ? 1 : 0};
        int ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), top.get(), a.get(), b.get()}, &pc, sizeof(pc), pc.n, 1, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr a, b;
};

DEFINE_LAYER_CREATOR(BatchNorm_vulkan)

} // namespace kite
