// Concat, compiled once per CPU ISA level (x86 and ARM), on packed blobs of any element
// type: along the packing axis (axis 0: c, h or w) the output is packed by the
// widest elempack dividing the total and scalar channels are moved across;
// along other axes every packed element moves as one (the reference on a
// wide view). Inputs that disagree run the reference on unpacked fp32 copies
// (reported: note_cpu_layer_on_reference).
#include "concat.h"
#include "common/shape_util.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"

namespace kite {
namespace KITE_ISA_NS {

class Concat_cpu : public Concat
{
public:
    Concat_cpu()
    {
        support_packing = true;
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.empty() || top_blobs.size() != 1)
            return Concat::forward(bottom_blobs, top_blobs, opt);
        const Mat& first = bottom_blobs[0];
        const int dims = first.dims;
        const int positive_axis = shape::normalize_axis(axis, dims);
        // every input of this rank and scalar type, equal on the axes not concatenated
        bool same = positive_axis >= 0;
        for (const Mat& b : bottom_blobs)
        {
            same = same && !b.empty() && b.dims == dims && b.elemsize / b.elempack == first.elemsize / first.elempack;
            for (int a = 0; same && a < dims; a++)
                same = a == positive_axis || logical_extent(b, a) == logical_extent(first, a);
        }
        if (same && positive_axis == 0)
            return concat_packed_axis(bottom_blobs, top_blobs[0], opt);
        bool same_pack = same;
        for (const Mat& b : bottom_blobs)
            same_pack = same_pack && b.elempack == first.elempack;
        if (same_pack)
        {
            std::vector<Mat> wide(bottom_blobs.size());
            for (size_t i = 0; i < bottom_blobs.size(); i++)
                wide[i] = packed_as_wide(bottom_blobs[i]);
            int ret = Concat::forward(wide, top_blobs, opt);
            if (ret == 0)
                top_blobs[0].elempack = first.elempack;
            return ret;
        }
        note_cpu_layer_on_reference();
        std::vector<Mat> unpacked;
        int ret = to_fp32_pack1(bottom_blobs, unpacked, opt);
        return ret != 0 ? ret : Concat::forward(unpacked, top_blobs, opt);
    }

private:
    // the size of logical axis a (outermost first) in scalars
    static int logical_extent(const Mat& m, int a)
    {
        if (a == 0)
            return (m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c) * m.elempack;
        const int inner[3] = {m.d, m.h, m.w}; // the axes after the packing one, innermost last
        return inner[3 - (m.dims - a)];
    }

    int concat_packed_axis(const std::vector<Mat>& bottom_blobs, Mat& top_blob, const Option& opt) const
    {
        int total = 0;
        for (const Mat& b : bottom_blobs)
            total += pack_axis(b).count;
        create_like_axis(top_blob, bottom_blobs[0], total, best_elempack(total), opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        if (top_blob.dims == 1)
        {
            // 1-D blobs keep their scalars in order whatever their elempack: one copy each
            unsigned char* out = (unsigned char*)top_blob.data;
            for (const Mat& b : bottom_blobs)
            {
                const size_t bytes = (size_t)b.w * b.elemsize;
                memcpy(out, b.data, bytes);
                out += bytes;
            }
                return 0;
        }
        const PackAxis dst = pack_axis(top_blob);
        int offset = 0;
        for (const Mat& b : bottom_blobs)
        {
            const PackAxis src = pack_axis(b);
            copy_channels(src, 0, dst, offset, src.count, opt.num_threads);
            offset += src.count;
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Concat_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
