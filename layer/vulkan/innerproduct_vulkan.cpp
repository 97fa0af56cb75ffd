// InnerProduct on Vulkan (shaders/vulkan/gemv.comp); int8 weights
// (int8_scale_term) are stored 4 per uint and run int8quant.comp +
// int8gemv.comp with the CPU's int8 arithmetic (int32 sums), its
// int8gemv_dot4 variant (packed integer dot product) where the device has one
// (vkl::use_int8_dot; kernel_path "int8-dot4", else "int8-gemv")
#include "innerproduct.h"

#include "common/activation.h"
#include "common/int8.h"
#include "vulkan/vulkan_common.h"

#include <cstdint>

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
            const int n = weight_data_size / num_output;
            const int n4 = (n + 3) / 4;
            Mat qs(1);
            if (qs.empty() || (size_t)n * num_output != (size_t)weight_data_size)
                return -1;
            qs[0] = bottom_blob_int8_scales[0];
            quant = vkl::pipeline_for(opt, "int8quant", 3, 1, 64, 1); // few rows, many quads
            int8_dot = vkl::use_int8_dot(opt, "int8gemv");
            pipe = int8_dot ? vkl::pipeline_for(opt, "int8gemv_dot4", 4, 64, 1, 1) : nullptr;
            int8_dot = pipe != nullptr; // a driver that cannot build it: the portable shader
            if (!int8_dot)
                pipe = vkl::pipeline_for(opt, "int8gemv", 4, 64, 1, 1);
            qscales = vkl::upload_weights(opt, qs);
            // [output][n4] words, 4 int8 each (0 beyond n)
            const int outn = num_output;
            weight = vkl::upload_layout<signed char>(opt, weight_data, (size_t)outn * n4, (size_t)outn,
                                                     [=](const signed char* w, float* dst, size_t o0, size_t o1) {
                uint32_t* d = (uint32_t*)dst;
                for (size_t o = o0; o < o1; o++)
                    for (int k = 0; k < n4; k++)
                    {
                        uint32_t u = 0;
                        for (int l = 0; l < 4 && 4 * k + l < n; l++)
                            u |= (uint32_t)(uint8_t)w[o * n + 4 * k + l] << (8 * l);
                        d[o * n4 + k] = u;
                    }
            });
            bias = vkl::upload_int8_args(opt, num_output, bias_term ? (const float*)bias_data : nullptr, scale_in, ones, bottom);
            if (!quant || !qscales)
                return -1;
            return pipe && weight && bias ? 0 : -1;
        }
        pipe = vkl::pipeline_for(opt, "gemv", 4, 64, 1, 1);
        weight = vkl::upload_weights(opt, weight_data, true); // gemv.comp reads them as wfp
        bias = vkl::upload_weights(opt, bias_term ? bias_data : Mat());
        return pipe && weight && bias ? 0 : -1;
    }
    const char* kernel_path() const override
    {
        return int8 ? (int8_dot ? "int8-dot4" : "int8-gemv") : nullptr;
    }
    int destroy_pipeline(const Option& opt) override
    {
        weight.reset();
        bias.reset();
        qscales.reset();
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
        if (int8)
            return forward_int8(bottoms[0], top, num_input, rows, act, s, tops);
        struct
        {
            int n, outn, rows, bias_term, act;
            float p0, p1;
        } pc = {num_input, num_output, rows, bias_term, act.type, act.p0, act.p1};
        // one work group of 64 per (output, row)
        int ret = s.dispatch(pipe, {vkl::blob_of(bottoms[0]), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), (uint32_t)num_output * 64, rows, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

private:
    // int8: quantize the input rows once (int8quant.comp, 4 values per uint:
    // q[k * rows + row]), then int8gemv.comp
    int forward_int8(const GpuBlobPtr& bottom, const vk::VkBlobPtr& top, int n, int rows, const Activation& act, vk::Session& s,
                     std::vector<GpuBlobPtr>& tops) const
    {
        const int n4 = (n + 3) / 4;
        const int f = (int)(4 / s.elemsize()); // uints in a blob of the session's scalars
        vk::VkBlobPtr q = s.create_blob(1, n4 * rows * f, 1, 1, 1);
        if (!q)
            return -100;
        // the input as a row-major matrix: channel = index in the row, position = row
        struct
        {
            int plane, c, ep, quads, cpg, in_int8;
        } pq = {rows, n, n, n4, n, vkl::blob_of(bottom)->int8 ? 1 : 0};
        int ret = s.dispatch(quant, {vkl::blob_of(bottom), qscales.get(), q.get()}, &pq, sizeof(pq), rows, n4, 1);
        if (ret != 0)
            return ret;
        struct
        {
            int n4, outn, rows, act;
            float p0, p1;
        } pc = {n4, num_output, rows, act.type, act.p0, act.p1};
        ret = s.dispatch(pipe, {q.get(), weight.get(), bias.get(), top.get()}, &pc, sizeof(pc), (uint32_t)num_output * 64, rows, 1);
        if (ret == 0)
            tops[0] = top;
        return ret;
    }

    const vk::Pipeline* pipe = nullptr;
    const vk::Pipeline* quant = nullptr; // int8quant.comp
    vk::VkBlobPtr weight, bias; // int8: bias holds the per-output arguments (upload_int8_args)
    vk::VkBlobPtr qscales; // int8: the bottom scale
    bool int8 = false;
    bool int8_dot = false; // int8gemv_dot4
};

DEFINE_LAYER_CREATOR(InnerProduct_vulkan)

} // namespace kite
