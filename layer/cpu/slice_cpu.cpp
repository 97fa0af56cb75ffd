// Slice, compiled once per CPU ISA level (x86 and ARM), on packed blobs of any element
// type: along the packing axis (axis 0) each output is packed by the widest
// elempack dividing its length; along other axes packed elements move whole
// (the reference on a wide view).
#include "slice.h"
#include "common/shape_util.h"
#include "cpu/packing_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class Slice_cpu : public Slice
{
public:
    Slice_cpu()
    {
        support_packing = true;
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.size() != 1 || top_blobs.empty() || bottom_blobs[0].empty())
            return Slice::forward(bottom_blobs, top_blobs, opt); // the reference names the problem
        const Mat& bottom_blob = bottom_blobs[0];
        const int positive_axis = shape::normalize_axis(axis, bottom_blob.dims);
        if (positive_axis < 0)
            return Slice::forward(bottom_blobs, top_blobs, opt); // the reference reports it
        if (positive_axis != 0)
        {
            std::vector<Mat> wide(1, packed_as_wide(bottom_blob));
            int ret = Slice::forward(wide, top_blobs, opt);
            for (Mat& t : top_blobs)
                t.elempack = bottom_blob.elempack;
            return ret;
        }
        const PackAxis src = pack_axis(bottom_blob);
        const int n = (int)top_blobs.size();
        std::vector<int> starts, lens;
        if (resolve_slices(src.count, n, starts, lens) != 0)
            return -1;
        for (int i = 0; i < n; i++)
        {
            const int ep = src.es == 1 ? 1 : best_elempack(lens[i]); // int8 stays planar
            create_like_axis(top_blobs[i], bottom_blob, lens[i], ep, opt.blob_allocator);
            if (top_blobs[i].empty())
                return -100;
            copy_channels(src, starts[i], pack_axis(top_blobs[i]), 0, lens[i], opt.num_threads);
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Slice_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
