// BatchNorm, compiled once per CPU ISA level (x86 and ARM), fp32 or fp16
// storage, in place on blobs of any elempack: y = b * x + a per channel
// (cpu/channel_affine_cpu.h, shared with Scale and Bias).
#include "batchnorm.h"
#include "cpu/channel_affine_cpu.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"

namespace kite {
namespace KITE_ISA_NS {

class BatchNorm_cpu : public BatchNorm
{
public:
    BatchNorm_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        if (m.empty() || m.dims < 1 || m.dims > 4 || (m.elembits() != 32 && m.elembits() != 16))
            return BatchNorm::forward_inplace(m, opt); // the reference names the problem
        return channel_affine_forward(m, opt, channels, a_data, b_data, "BatchNorm", name,
                                      [&](Mat& fp32) { return BatchNorm::forward_inplace(fp32, opt); });
    }
};

DEFINE_LAYER_CREATOR(BatchNorm_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
