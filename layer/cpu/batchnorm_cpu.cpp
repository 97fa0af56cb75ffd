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
        const int ret = channel_affine(m, opt, channels, a_data, b_data);
        if (ret == 2)
        {
            KITE_LOGE("BatchNorm '%s': input has %d channels, the layer was made for %d", name.c_str(),
                      (m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c) * m.elempack, channels);
            return -1;
        }
        if (ret != 1)
            return ret;
        note_cpu_layer_on_reference();
        Mat b;
        int r = to_fp32_pack1(m, b, opt);
        if (r == 0)
            r = BatchNorm::forward_inplace(b, opt);
        if (r == 0)
            m = b;
        return r;
    }
};

DEFINE_LAYER_CREATOR(BatchNorm_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
