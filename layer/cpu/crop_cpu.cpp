// Crop, compiled once per CPU ISA level (x86 and ARM), on blobs of any
// elempack and element type, one input or two (the second giving the box's
// sizes; its unpacked shape is what counts). The box is resolved on the
// unpacked shape, then:
//   - the packing axis cropped alone: scalar channels move into an output
//     packed by the widest elempack dividing its extent;
//   - the packing axis whole: packed elements move as one (a box copy of a
//     wide view);
//   - both: the box copy of the inner axes, then the channels.
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
        if (bottom_blob.empty() || bottom_blob.dims < 1 || bottom_blob.dims > 4)
            return Crop::forward(bottom_blob, top_blob, opt); // the reference names the problem
        return crop(bottom_blob, nullptr, top_blob, opt);
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (one_blob_only || bottom_blobs.size() < 2 || top_blobs.size() != 1 || bottom_blobs[0].empty()
            || bottom_blobs[0].dims < 1 || bottom_blobs[0].dims > 4 || bottom_blobs[1].dims < 1 || bottom_blobs[1].dims > 4)
            return Crop::forward(bottom_blobs, top_blobs, opt); // one input, or the reference names the problem
        const Mat ref = unpacked_shape(bottom_blobs[1]);
        return crop(bottom_blobs[0], &ref, top_blobs[0], opt);
    }

private:
    // the shape (no data) m has unpacked
    static Mat unpacked_shape(const Mat& m)
    {
        Mat u = m.shape();
        const int ep = m.elempack;
        if (m.dims == 1)
            u.w *= ep;
        else if (m.dims == 2)
            u.h *= ep;
        else
            u.c *= ep;
        u.elemsize = m.elemsize / ep;
        u.elempack = 1;
        return u;
    }

    int crop(const Mat& bottom_blob, const Mat* ref, Mat& top_blob, const Option& opt) const
    {
        const int ep = bottom_blob.elempack;
        const Mat shp = unpacked_shape(bottom_blob);
        int start[4], extent[4];
        if (resolve_box(shp, ref, start, extent) != 0)
            return -1;
        const shape::Dims full = shape::dims_of(shp);
        bool rest_whole = true;
        for (int i = 1; i < shp.dims; i++)
            rest_whole = rest_whole && start[i] == 0 && extent[i] == full.s[i];
        const bool axis0_whole = start[0] == 0 && extent[0] == full.s[0];
        const int es = (int)(bottom_blob.elemsize / ep);
        const int Q = es == 1 ? 1 : best_elempack(extent[0]); // int8 stays planar
        if (rest_whole && !axis0_whole)
        {
            create_like_axis(top_blob, bottom_blob, extent[0], Q, opt.blob_allocator);
            if (top_blob.empty())
                return -100;
            copy_channels(pack_axis(bottom_blob), start[0], pack_axis(top_blob), 0, extent[0], opt.num_threads);
            return 0;
        }
        // the inner axes as a box of whole packed elements
        int wstart[4], wextent[4];
        for (int i = 0; i < shp.dims; i++)
            wstart[i] = start[i], wextent[i] = extent[i];
        wstart[0] = 0;
        wextent[0] = full.s[0] / ep;
        Mat mid;
        int ret = crop_box(packed_as_wide(bottom_blob), wstart, wextent, axis0_whole ? top_blob : mid, opt);
        if (ret != 0)
            return ret;
        if (axis0_whole)
        {
            top_blob.elempack = ep;
            return 0;
        }
        mid.elempack = ep;
        create_like_axis(top_blob, mid, extent[0], Q, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        copy_channels(pack_axis(mid), start[0], pack_axis(top_blob), 0, extent[0], opt.num_threads);
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Crop_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
