// Scale with its weights (y = x * scale[c] (+ bias[c])), compiled once per CPU
// ISA level, fp32 or fp16 storage, in place on blobs of any elempack
// (cpu/channel_affine_cpu.h). The form that reads its scales from a second
// input (scale_data_size -233) stays on the reference row (accept()).
#include "cpu/channel_affine_cpu.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"
#include "scale.h"

namespace kite {
namespace KITE_ISA_NS {

class Scale_cpu : public Scale
{
public:
    Scale_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    bool accept() const override
    {
        return scale_data_size != -233;
    }

    int load_model(const ModelBin& mb) override
    {
        int ret = Scale::load_model(mb);
        if (ret != 0 || scale_data_size <= 0)
            return ret;
        // y = b * x + a: b the scales, a the biases (zeros without bias_term)
        a_data.create(scale_data_size);
        if (a_data.empty())
            return -100;
        for (int i = 0; i < scale_data_size; i++)
            a_data[i] = bias_term ? bias_data[i] : 0.f;
        return 0;
    }

    using Scale::forward_inplace;

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        if (m.empty() || m.dims < 1 || m.dims > 4 || (m.elembits() != 32 && m.elembits() != 16) || a_data.empty())
            return Scale::forward_inplace(m, opt); // the reference names the problem
        return channel_affine_forward(m, opt, scale_data_size, a_data, scale_data, "Scale", name,
                                      [&](Mat& fp32) { return Scale::forward_inplace(fp32, opt); });
    }

private:
    Mat a_data;
};

DEFINE_LAYER_CREATOR(Scale_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
