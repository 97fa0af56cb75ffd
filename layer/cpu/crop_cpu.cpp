// Crop, compiled once per CPU ISA level (x86 and ARM), on packed blobs of any element
// type: a crop of the packing axis alone moves scalar channels into an output
// packed by the widest elempack dividing its extent; a crop that keeps the
// packing axis whole moves packed elements (the reference on a wide view);
// anything else (both at once, or the two-input form) runs the reference on
// an unpacked fp32 copy.
#include "crop.h"
#include "common/shape_util.h"
#include "cpu/packing_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class Crop_cpu : public Crop
{
public:
    Crop_cpu()
    {
        support_packing = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (bottom_blob.empty() || bottom_blob.elempack == 1)
            return Crop::forward(bottom_blob, top_blob, opt);
        // the box in scalar terms: resolve it on the unpacked shape
        const int ep = bottom_blob.elempack;
        Mat shp = bottom_blob.shape();
        shp.elempack = 1;
        shp.elemsize = bottom_blob.elemsize / ep;
        if (shp.dims == 1)
            shp.w *= ep;
        else if (shp.dims == 2)
            shp.h *= ep;
        else
            shp.c *= ep;
        int start[4], extent[4];
        if (resolve_box(shp, nullptr, start, extent) != 0)
            return -1;
        const shape::Dims full = shape::dims_of(shp);
        bool rest_whole = true;
        for (int i = 1; i < shp.dims; i++)
            rest_whole = rest_whole && start[i] == 0 && extent[i] == full.s[i];
        if (rest_whole)
        {
            create_like_axis(top_blob, bottom_blob, extent[0], best_elempack(extent[0]), opt.blob_allocator);
            if (top_blob.empty())
                return -100;
            copy_channels(pack_axis(bottom_blob), start[0], pack_axis(top_blob), 0, extent[0], opt.num_threads);
            return 0;
        }
        if (start[0] == 0 && extent[0] == full.s[0])
        {
            start[0] = 0;
            extent[0] = full.s[0] / ep;
            int ret = crop_box(packed_as_wide(bottom_blob), start, extent, top_blob, opt);
            top_blob.elempack = ep;
            return ret;
        }
        Mat b;
        int ret = to_fp32_pack1(bottom_blob, b, opt);
        return ret != 0 ? ret : Crop::forward(b, top_blob, opt);
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.size() < 2)
            return Crop::forward(bottom_blobs, top_blobs, opt);
        std::vector<Mat> unpacked;
        int ret = to_fp32_pack1(bottom_blobs, unpacked, opt);
        return ret != 0 ? ret : Crop::forward(unpacked, top_blobs, opt);
    }
};

DEFINE_LAYER_CREATOR(Crop_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
