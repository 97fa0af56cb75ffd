// ShuffleChannel, compiled once per CPU ISA level (x86 and ARM): moves scalar channels
// of a blob (dims 3/4, any elempack and element type) to their shuffled place,
// keeping the elempack (an unpacked blob: one copy per channel). A dims 1/2
// blob runs the reference on an unpacked fp32 copy (reported:
// note_cpu_layer_on_reference).
#include "shufflechannel.h"
#include "gpu/cpu_fallback.h"
#include "cpu/packing_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class ShuffleChannel_cpu : public ShuffleChannel
{
public:
    ShuffleChannel_cpu()
    {
        support_packing = true;
        support_fp16_storage = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (bottom_blob.empty())
            return ShuffleChannel::forward(bottom_blob, top_blob, opt); // the reference names the problem
        if (bottom_blob.dims < 3)
        {
            note_cpu_layer_on_reference();
            Mat b;
            int ret = to_fp32_pack1(bottom_blob, b, opt);
            return ret != 0 ? ret : ShuffleChannel::forward(b, top_blob, opt);
        }
        const PackAxis src = pack_axis(bottom_blob);
        const int channels = src.count;
        if (channels % group != 0)
        {
            KITE_LOGE("ShuffleChannel '%s': %d channels do not divide into %d groups", name.c_str(), channels, group);
            return -1;
        }
        const int g = reverse ? channels / group : group;
        const int cpg = channels / g;
        top_blob.create_like(bottom_blob, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        // output q = i * g + j  <-  input j * cpg + i
        copy_channels_map(src, pack_axis(top_blob), 0, channels, [g, cpg](int q) { return (q % g) * cpg + q / g; },
                          bottom_blob.elempack == 1, opt.num_threads); // unpacked: whole channels
        return 0;
    }
};

DEFINE_LAYER_CREATOR(ShuffleChannel_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
