// Permute, compiled once per CPU ISA level (x86 and ARM), on packed blobs of any element
// type (dims 2..4). An order that keeps the packing axis outermost moves whole
// packed elements (the reference on a wide view). Any other order gathers
// scalars into an output packed by the widest elempack dividing its new
// outermost axis: each output row is walked in memory order and its source
// scalar found from the input's packed strides (the packing axis contributes
// (i / P) groups plus lane i % P), elempack 1 included. A 1-D blob is its own
// permutation. A planar NHWC image of 2..4 channels to CHW deinterleaves each
// row.
#include "permute.h"
#include "cpu/packing_cpu.h"
#include "pack_transpose.h"
#include "gpu/cpu_fallback.h"

#include <algorithm>

namespace kite {
namespace KITE_ISA_NS {

class Permute_cpu : public Permute
{
public:
    Permute_cpu()
    {
        support_packing = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        const int ep = bottom_blob.elempack;
        if (bottom_blob.empty() || bottom_blob.dims < 1 || bottom_blob.dims > 4)
            return Permute::forward(bottom_blob, top_blob, opt); // the reference names the problem
        const int dims = bottom_blob.dims;
        int perm[4];
        if (!permutation(dims, order_type, perm))
            return Permute::forward(bottom_blob, top_blob, opt); // the reference reports it
        if (dims == 1)
        {
            top_blob = bottom_blob; // the one order of a 1-D blob
            return 0;
        }
        if (perm[0] == 0 && ep > 1)
        {
            int ret = Permute::forward(packed_as_wide(bottom_blob), top_blob, opt);
            if (ret == 0)
                top_blob.elempack = ep;
            return ret;
        }
        switch (bottom_blob.elemsize / ep)
        {
        case 4:
            return gather<unsigned int>(bottom_blob, top_blob, perm, opt);
        case 2:
            return gather<unsigned short>(bottom_blob, top_blob, perm, opt);
        case 1:
            return gather<unsigned char>(bottom_blob, top_blob, perm, opt);
        default:
            note_cpu_layer_on_reference();
            Mat b;
            int ret = to_fp32_pack1(bottom_blob, b, opt);
            return ret != 0 ? ret : Permute::forward(b, top_blob, opt);
        }
    }

private:
    // out[k][r][x] = in[r][x][k] for the C planar channels k of top_blob
    template<class E, int C>
    static int deinterleave_rows(const Mat& bottom_blob, Mat& top_blob, int num_threads)
    {
        const int rows = bottom_blob.c, n = bottom_blob.h;
        #pragma omp parallel for num_threads(num_threads)
        for (int r = 0; r < rows; r++)
        {
            const E* s = (const E*)bottom_blob.data + bottom_blob.cstep * r;
            E* o[C];
            for (int k = 0; k < C; k++)
                o[k] = (E*)top_blob.data + top_blob.cstep * k + (size_t)r * n;
            for (int x = 0; x < n; x++)
                for (int k = 0; k < C; k++)
                    o[k][x] = s[x * C + k];
        }
        return 0;
    }

    template<class E>
    int gather(const Mat& bottom_blob, Mat& top_blob, const int* perm, const Option& opt) const
    {
        const int dims = bottom_blob.dims;
        const int P = bottom_blob.elempack;
        // input logical axes outermost first, in scalars, and their strides in
        // scalars (the packing axis 0 is handled apart)
        int ext[4] = {1, 1, 1, 1};
        size_t st[4] = {0, 0, 0, 0};
        size_t group_stride; // scalars between packed groups of axis 0
        if (dims == 2)
        {
            ext[0] = bottom_blob.h * P, ext[1] = bottom_blob.w;
            st[1] = P;
            group_stride = (size_t)bottom_blob.w * P;
        }
        else if (dims == 3)
        {
            ext[0] = bottom_blob.c * P, ext[1] = bottom_blob.h, ext[2] = bottom_blob.w;
            st[1] = (size_t)bottom_blob.w * P, st[2] = P;
            group_stride = bottom_blob.cstep * P;
        }
        else
        {
            ext[0] = bottom_blob.c * P, ext[1] = bottom_blob.d, ext[2] = bottom_blob.h, ext[3] = bottom_blob.w;
            st[1] = (size_t)bottom_blob.w * bottom_blob.h * P, st[2] = (size_t)bottom_blob.w * P, st[3] = P;
            group_stride = bottom_blob.cstep * P;
        }
        // output logical axes: out axis j is input axis perm[j]
        int oext[4] = {1, 1, 1, 1};
        for (int j = 0; j < dims; j++)
            oext[j] = ext[perm[j]];
        const int Q = sizeof(E) == 1 ? 1 : best_elempack(oext[0]); // int8 stays planar
        const size_t es = sizeof(E);
        if (dims == 2)
            top_blob.create(oext[1], oext[0] / Q, es * Q, Q, opt.blob_allocator);
        else if (dims == 3)
            top_blob.create(oext[2], oext[1], oext[0] / Q, es * Q, Q, opt.blob_allocator);
        else
            top_blob.create(oext[3], oext[2], oext[1], oext[0] / Q, es * Q, Q, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const size_t out_group = dims == 2 ? (size_t)top_blob.w * Q : top_blob.cstep * Q;

        // the rest of the output axes (1..dims-1) as up to three loops z, y, x
        // (outermost first); which input axis each one walks
        int rext[3] = {1, 1, 1}, rsrc[3] = {-1, -1, -1};
        for (int j = 1; j < dims; j++)
        {
            rext[3 - dims + j] = oext[j];
            rsrc[3 - dims + j] = perm[j];
        }
        // the one output axis that walks the input's packing axis, if any
        int packed_loop = -1;
        for (int k = 0; k < 3; k++)
            if (rsrc[k] == 0)
                packed_loop = k;
        size_t rst[3];
        for (int k = 0; k < 3; k++)
            rst[k] = rsrc[k] > 0 ? st[rsrc[k]] : 0;
        // input stride of the output's axis 0 (its own axis 0 only when unpacked)
        const size_t st0 = perm[0] == 0 ? group_stride : st[perm[0]];

        const E* src = (const E*)bottom_blob.data;
        // TensorFlow's NHWC image to CHW (order 4 on a planar [C, W, H] blob of
        // 2..4 channels): each input plane, one image row, deinterleaved into C
        // output rows (3x299x299, InceptionV3's input: 0.106 -> 0.036 ms CPU)
#if defined(__SSE2__)
        // the same from rows the Net packed by P (a 224-row image): 4 pixels x
        // 4 lanes per 4x4 transpose, each output row written 4 pixels at a time
        if (dims == 3 && P >= 4 && P % 4 == 0 && Q == 1 && es == 4 && perm[0] == 2 && perm[1] == 0 && perm[2] == 1)
        {
            const int rows = bottom_blob.c, n = bottom_blob.h, C = bottom_blob.w;
            const int nt1 = (size_t)C * n * rows * P * es < 65536 ? 1 : opt.num_threads;
            #pragma omp parallel for num_threads(nt1)
            for (int q = 0; q < rows; q++)
            {
                const E* sg = src + bottom_blob.cstep * P * q;
                for (int k = 0; k < C; k++)
                {
                    E* o = (E*)top_blob.data + top_blob.cstep * k + (size_t)q * P * n;
                    const size_t done = (size_t)n / 4 * 4;
                    for (int l0 = 0; l0 < P; l0 += 4)
                    {
                        const unsigned char* const sr[4] = {
                            (const unsigned char*)(sg + ((size_t)0 * C + k) * P + l0), (const unsigned char*)(sg + ((size_t)1 * C + k) * P + l0),
                            (const unsigned char*)(sg + ((size_t)2 * C + k) * P + l0), (const unsigned char*)(sg + ((size_t)3 * C + k) * P + l0)};
                        unsigned char* const dr[4] = {(unsigned char*)(o + (size_t)l0 * n), (unsigned char*)(o + (size_t)(l0 + 1) * n),
                                                      (unsigned char*)(o + (size_t)(l0 + 2) * n), (unsigned char*)(o + (size_t)(l0 + 3) * n)};
                        transpose4x4_u32(sr, (size_t)4 * C * P * es, dr, 4 * es, done / 4);
                    }
                    for (size_t x = done; x < (size_t)n; x++)
                        for (int l = 0; l < P; l++)
                            o[(size_t)l * n + x] = sg[(x * C + k) * P + l];
                }
            }
            return 0;
        }
#endif
        if (dims == 3 && P == 1 && Q == 1 && perm[0] == 2 && perm[1] == 0 && perm[2] == 1)
        {
            const int nt1 = (size_t)bottom_blob.w * bottom_blob.h * bottom_blob.c * es < 65536 ? 1 : opt.num_threads;
            switch (bottom_blob.w)
            {
            case 2:
                return deinterleave_rows<E, 2>(bottom_blob, top_blob, nt1);
            case 3:
                return deinterleave_rows<E, 3>(bottom_blob, top_blob, nt1);
            case 4:
                return deinterleave_rows<E, 4>(bottom_blob, top_blob, nt1);
            default:
                break;
            }
        }
        const int groups = oext[0] / Q;
        // a small blob (detection heads) on one thread: waking the others costs more
        const int nt = (size_t)oext[0] * rext[0] * rext[1] * rext[2] * es < 65536 ? 1 : opt.num_threads;
        #pragma omp parallel for num_threads(nt)
        for (int g = 0; g < groups; g++)
        {
            E* out = (E*)top_blob.data + g * out_group;
            size_t o = 0;
            for (int z = 0; z < rext[0]; z++)
                for (int y = 0; y < rext[1]; y++)
                {
                    // the z and y terms of the source offset, then x's
                    size_t base = (size_t)g * Q * st0;
                    const int idx[2] = {z, y};
                    for (int k = 0; k < 2; k++)
                        if (k == packed_loop)
                            base += (size_t)(idx[k] / P) * group_stride + idx[k] % P;
                        else
                            base += idx[k] * rst[k];
                    if (packed_loop == 2 && Q == 1)
                    {
                        // the input's packed elements in turn: P adjacent
                        // scalars each (SSD heads: [w,h,c] packed -> [c,w,h])
                        for (int x0 = 0; x0 < rext[2]; x0 += P)
                        {
                            const E* sp = src + base + (size_t)(x0 / P) * group_stride;
                            const int n = std::min(P, rext[2] - x0);
                            for (int l = 0; l < n; l++)
                                out[o++] = sp[l];
                        }
                    }
                    else if (packed_loop == 2)
                    {
                        for (int x = 0; x < rext[2]; x++)
                        {
                            const E* sp = src + base + (size_t)(x / P) * group_stride + x % P;
                            for (int l = 0; l < Q; l++)
                                out[o++] = sp[l * st0];
                        }
                    }
                    else if (Q == 1)
                    {
                        const E* sp = src + base;
                        const size_t sx = rst[2];
                        for (int x = 0; x < rext[2]; x++)
                            out[o++] = sp[x * sx];
                    }
                    else
                    {
                        for (int x = 0; x < rext[2]; x++)
                        {
                            const E* sp = src + base + x * rst[2];
                            for (int l = 0; l < Q; l++)
                                out[o++] = sp[l * st0];
                        }
                    }
                }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Permute_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
