// Flatten, compiled once per CPU ISA level (x86 and ARM), on blobs of any
// elempack and scalar size: the output (1-D) keeps its scalars in order
// whatever its elempack, so it is packed by the widest elempack dividing the
// count. A blob whose memory already is its scalars in order (1-D, or
// unpacked without channel padding) is viewed without a copy; a packed one
// is unpacked channel by channel into the output (4x4 transposes on x86).
#include "flatten.h"
#include "cpu/flat_cpu.h"
#include "gpu/cpu_fallback.h"

#include <climits>

namespace kite {
namespace KITE_ISA_NS {

class Flatten_cpu : public Flatten
{
public:
    Flatten_cpu()
    {
        support_packing = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (bottom_blob.empty() || bottom_blob.dims < 1 || bottom_blob.dims > 4)
            return Flatten::forward(bottom_blob, top_blob, opt); // the reference names the problem
        const size_t total = flat_scalars(bottom_blob);
        if (total > INT_MAX)
        {
            KITE_LOGE("Flatten '%s': %zu elements do not fit one axis", name.c_str(), total);
            return -1;
        }
        const int es = (int)(bottom_blob.elemsize / bottom_blob.elempack);
        const int ep = output_elempack((int)total, es);
        const int s[4] = {(int)total, 1, 1, 1};
        if (flat_contiguous(bottom_blob))
        {
            top_blob = view_as(bottom_blob, 1, s, ep);
            return 0;
        }
        create_shaped(top_blob, 1, s, es, ep, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        flatten_into(bottom_blob, (unsigned char*)top_blob.data, opt.num_threads);
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Flatten_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
