// Reshape, compiled once per CPU ISA level (x86 and ARM), on blobs of any
// elempack and scalar size, with fixed sizes or a shape expression (resolved
// on the inputs' unpacked shapes). The output is packed by the widest
// elempack dividing its packing axis (int8 stays planar). Whatever the two
// layouts, one pass where it can:
//   - no copy where the input's memory already is the output's (a 1-D
//     output, or a 2-D unpacked one, of a 1-D or unpadded unpacked input);
//   - channel by channel (whole packed units where the packs agree) when the
//     input and output channels hold the same number of scalars (a reshape
//     that only regroups the axes inside a channel, or only splits/merges
//     channels);
//   - else through the scalars in order: straight from or into the blob
//     whose memory is in order, through a workspace buffer otherwise.
#include "reshape.h"
#include "cpu/flat_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

class Reshape_cpu : public Reshape
{
public:
    Reshape_cpu()
    {
        support_packing = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        std::vector<Mat> bottoms(1, bottom_blob);
        std::vector<Mat> tops(1);
        int ret = forward(bottoms, tops, opt);
        top_blob = tops[0];
        return ret;
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.empty() || top_blobs.size() != 1 || bottom_blobs[0].empty() || bottom_blobs[0].dims < 1
            || bottom_blobs[0].dims > 4)
            return Reshape::forward(bottom_blobs, top_blobs, opt); // the reference names the problem
        const Mat& A = bottom_blobs[0];
        Mat& top = top_blobs[0];
        std::vector<Mat> shapes(bottom_blobs.size());
        for (size_t i = 0; i < bottom_blobs.size(); i++)
            shapes[i] = unpacked_shape(bottom_blobs[i]);
        int s[4], n;
        if (output_shape(shapes, s, n) != 0)
            return -1;
        const int es = (int)(A.elemsize / A.elempack);
        const size_t total = flat_scalars(A);
        const int out_count = packing_axis_size(n, s);
        int ep = output_elempack(out_count, es);
        // rows kept whole between an unpacked matrix of rows and a 3-D/4-D
        // blob of the same rows (tokens: [E, tokens] <-> [E, W, H], convnext's
        // channels-last MLP): the output stays unpacked, as the matrix
        // products on both sides want it, instead of packing the outer axis
        // (two repacks of the whole blob and a third before the next
        // InnerProduct); E >= 16: the row runs vectorised
        if (A.elempack == 1 && n >= 2 && (A.dims == 2) != (n == 2) && s[0] == A.w && A.w >= 16)
            ep = 1;
        // the scalars in order in both layouts: no copy (dims 3/4 unpacked
        // where the planes need no alignment padding, as Mat::create's cstep)
        const bool plane_aligned = n >= 3 && ep == 1
                                   && ((size_t)s[0] * s[1] * (n == 4 ? s[2] : 1) * es) % 16 == 0;
        if (flat_contiguous(A) && (n == 1 || (n == 2 && ep == 1) || plane_aligned))
        {
            top = view_as(A, n, s, ep);
            return 0;
        }
        create_shaped(top, n, s, es, ep, opt.blob_allocator);
        if (top.empty())
            return -100;
        const size_t out_plane = total / out_count;
        if (A.dims >= 2 && flat_plane(A) == out_plane)
        {
            const PackAxis src = pack_axis(A);
            copy_channels(src, 0, pack_axis(top), 0, src.count, opt.num_threads);
            return 0;
        }
        if (flat_contiguous(A))
        {
            unflatten_into((const unsigned char*)A.data, top, opt.num_threads);
            return 0;
        }
        if (flat_contiguous(top))
        {
            flatten_into(A, (unsigned char*)top.data, opt.num_threads);
            return 0;
        }
        Mat flat;
        flat.create((int)total, (size_t)es, 1, opt.workspace_allocator);
        if (flat.empty())
            return -100;
        flatten_into(A, (unsigned char*)flat.data, opt.num_threads);
        unflatten_into((const unsigned char*)flat.data, top, opt.num_threads);
        return 0;
    }

private:
    // the shape (no data) m has unpacked, for the shape expressions and sizes
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
};

DEFINE_LAYER_CREATOR(Reshape_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
