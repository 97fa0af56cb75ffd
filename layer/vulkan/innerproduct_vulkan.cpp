// InnerProduct on Vulkan (shaders/vulkan/gemv.comp); int8 weights
// (int8_scale_term) run int8gemv.comp with the CPU's int8 arithmetic
#include "innerproduct.h"

#include "common/activation.h"
#include "common/int8.h"
#include "vulkan/vulkan_common.h"

namespace kite {

class InnerProduct_vulkan : public InnerProduct
{
public:
    InnerProduct_vulkan()
    {
        support_vulkan = true;
    }
    bool accept() const override
    {
        return activation_type >= 0 && activation_type < ACTIVATION_TYPE_COUNT;
    }
    int create_pipeline(const Option& opt) override
    {
        int ret = InnerProduct::create_pipeline(opt);
        if (ret != 0)
            return ret;
        int8 = weight_data.elemsize == 1u;
        if (int8)
        {
            // InnerProduct::forward: sum * scale_in, then + bias
            std::vector<float> scale_in(num_output), ones(num_output, 1.f), bottom(num_output, bottom_blob_int8_scales[0]);
            for (int p = 0; p < num_output; p++)
                scale_in[p] = int8_dequant_scale(bottom_blob_int8_scales[0], weight_data_int8_scales[p]);
            pipe = vkl::pipeline_for(opt, "int8gemv", 4, 64, 1, 1);
            weight = vkl::upload_int8_weights(opt, weight_data);
            bias = vkl::upload_int8_args(opt, num_output, bias_term ? (const float*)bias_data : nullptr, scale_in, ones, bottom);
            return pipe && weight && bias ? 0 : -1;
        }
        pipe = vkl::pipeline_for(opt, "gemv", 4, 64, 1, 1);
        weight = vkl::upload_weights(opt, weight_data, true); // gemv.comp reads them as wfp
        bias = vkl::upload_weights(opt, bias_term ? bias_data : Mat());
        return pipe && weight && bias ? 0 : -1;
    }
    int destroy_pipeline(const Option& opt) override
    {
        weight.reset();
        bias.reset();
        return InnerProduct::destroy_pipeline(opt);
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& session, const Option&) const override
    {
        vk::Session& s = vkl::session_of(session);
        const Mat& in = bottoms[0]->shape;
        const int num_input = weight_data_size / num_output;
        // a dims-2 input of w == num_input is h separate vectors (as the reference)
        const bool row_mode = in.dims == 2 && in.w == num_input;
        const int rows = row_mode ? in.h : 1;
        const size_t total = (size_t)in.w * in.h * in.d * in.c;
        if (total != (size_t)num_input * rows)
        {
            KITE_LOGE("InnerProduct '%s': input of %zu values does not match num_input %d", name.c_str(), total, num_input);
            return -1;
        }
        vk::VkBlobPtr top = row_mode ? s.create_blob(2, num_output, rows, 1, 1) : s.create_blob(1, num_output, 1, 1, 1);
        if (!top)
            return -100;
        const Activation act(activation_type, activation_params);
        struct
        {
            int n, outn, rows, flag, act; // flag: bias_term (gemv), input holds int8 values (int8gemv)
            float p0, p1;
        } pc = {num_input, num_output, rows, int8 ? (int)vkl::blob_of(bottoms[0])->int8 : bias_term, act.type, act.p0, act.p1};
        int ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), num_output, rows, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    const vk::Pipeline* pipe = nullptr;
    vk::VkBlobPtr weight, bias; // int8: bias holds the per-output arguments (upload_int8_args)
    bool int8 = false;
};

DEFINE_LAYER_CREATOR(InnerProduct_vulkan)

} // namespace kite
