// Bias (y = x + bias[c]), compiled once per CPU ISA level, fp32 or fp16
// storage, in place on blobs of any dims and elempack (cpu/channel_affine_cpu.h;
// the channel axis as the reference's per_channel_layout).
#include "bias.h"
#include "cpu/channel_affine_cpu.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"

namespace kite {
namespace KITE_ISA_NS {

class Bias_cpu : public Bias
{
public:
    Bias_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int load_model(const ModelBin& mb) override
    {
        int ret = Bias::load_model(mb);
        if (ret != 0)
            return ret;
        ones.create(bias_data_size);
        if (ones.empty())
            return -100;
        ones.fill(1.f);
        return 0;
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        if (m.empty() || m.dims < 1 || m.dims > 4 || (m.elembits() != 32 && m.elembits() != 16) || ones.empty())
            return Bias::forward_inplace(m, opt); // the reference names the problem
        return channel_affine_forward(m, opt, bias_data_size, bias_data, ones, "Bias", name,
                                      [&](Mat& fp32) { return Bias::forward_inplace(fp32, opt); });
    }

private:
    Mat ones;
};

DEFINE_LAYER_CREATOR(Bias_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
