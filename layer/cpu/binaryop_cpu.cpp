// BinaryOp, compiled once per CPU ISA level (x86 and ARM), fp32 or fp16 storage:
// vectorised on packed blobs for add/sub/mul/div/max/min/rsub/rdiv with a
// scalar, with an operand of the same shape and layout, and with a
// per-channel operand (1-D, or 3-D/4-D of one element per channel) against a
// dims 3/4 blob on either side, with one row along w repeated over the
// other axes (a bias [w,1] against [w,h]) on either side, and between two
// 3-D/4-D operands whose axes are each the output's or 1 (channels packed as
// the output's, or a single one). Other broadcasts, the pow and atan2 families
// and mixed layouts run the reference on unpacked fp32 copies (reported:
// note_cpu_layer_on_reference).
#include "binaryop.h"
#include "cpu/binary_cpu.h"
#include "cpu/packing_cpu.h"
#include "cpu/unary_cpu.h"
#include "gpu/cpu_fallback.h"

#include <algorithm>

namespace kite {
namespace KITE_ISA_NS {

class BinaryOp_cpu : public BinaryOp
{
public:
    BinaryOp_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        const int op = op_type;
        const float s = b;
        if (!binary_kernel_has(op))
            return unary_inplace_scalar(m, opt, [op, s](float x) { return BinaryOp::apply(op, x, s); });
        return unary_inplace_cpu(m, opt, [op, s](auto tag, auto x) {
            typedef decltype(tag) V;
            return binary_kernel<V>(op, x, V::set1(s));
        });
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        if (bottom_blobs.size() == 2 && top_blobs.size() == 1 && binary_kernel_has(op_type))
        {
            const Mat& A = bottom_blobs[0];
            const Mat& B = bottom_blobs[1];
            if (!A.empty() && same_layout(A, B))
                return A.elembits() == 16 ? same_shape<unsigned short>(A, B, top_blobs[0], opt) : same_shape<float>(A, B, top_blobs[0], opt);
            // one value per channel against a 3-D/4-D blob: a 1-D blob of the
            // channel count, or a 3-D/4-D one of one element per channel
            // (a squeeze-excitation scale), on either side
            if (per_channel_of(B, A))
                return per_channel_dispatch(A, B, op_type, top_blobs[0], opt);
            const int swapped = swapped_op(op_type);
            if (swapped >= 0 && per_channel_of(A, B))
                return per_channel_dispatch(B, A, swapped, top_blobs[0], opt);
            // one row along w repeated over every other axis (a transformer's
            // bias [w,1] against [w,h]), on either side
            if (row_of(B, A))
                return A.elembits() == 16 ? per_row<unsigned short>(A, B, false, top_blobs[0], opt)
                                          : per_row<float>(A, B, false, top_blobs[0], opt);
            if (row_of(A, B))
                return A.elembits() == 16 ? per_row<unsigned short>(B, A, true, top_blobs[0], opt)
                                          : per_row<float>(B, A, true, top_blobs[0], opt);
            // operands of one rank (3-D/4-D) whose every axis is the output's
            // or 1, channels in the output's elempack or 1 (swin_t's attention
            // bias [49,49,heads,1] and shift mask [49,49,1,windows] against
            // [49,49,heads,windows], its padding grid [1,h,c] + [w,1,1])
            Broadcast bc;
            if (broadcast_fits(A, B, bc))
                return A.elembits() == 16 ? broadcast<unsigned short>(A, B, bc, top_blobs[0], opt)
                                          : broadcast<float>(A, B, bc, top_blobs[0], opt);
            // one plane (3-D, one channel) repeated over the channels of a
            // 3-D blob, on either side (a layer norm over channels in CHW:
            // x - mean(x), -mean * rstd), and a plane against one value per
            // channel (rstd * gamma): fp32
            int ret = -2;
            if (plane_of(B, A))
                ret = per_plane(A, B, op_type, top_blobs[0], opt);
            else if (swapped >= 0 && plane_of(A, B))
                ret = per_plane(B, A, swapped, top_blobs[0], opt);
            else if (plane_and_channels(A, B))
                ret = plane_by_channel(A, B, op_type, top_blobs[0], opt);
            else if (swapped >= 0 && plane_and_channels(B, A))
                ret = plane_by_channel(B, A, swapped, top_blobs[0], opt);
            if (ret != -2)
                return ret;
            // one value (a blob of a single element, e.g. the mean of a
            // 1-D vector) against any fp32 blob, on either side
            if (single_value(B) && !single_value(A) && A.elembits() == 32)
                return against_value(A, ((const float*)B.data)[0], op_type, top_blobs[0], opt);
            if (swapped >= 0 && single_value(A) && !single_value(B) && B.elembits() == 32)
                return against_value(B, ((const float*)A.data)[0], swapped, top_blobs[0], opt);
        }
        note_cpu_layer_on_reference();
        std::vector<Mat> unpacked;
        int ret = to_fp32_pack1(bottom_blobs, unpacked, opt);
        return ret != 0 ? ret : BinaryOp::forward(unpacked, top_blobs, opt);
    }

private:
    template<class S>
    int same_shape(const Mat& A, const Mat& B, Mat& top, const Option& opt) const
    {
        top.create_like(A, opt.blob_allocator);
        if (top.empty())
            return -100;
        const int channels = A.dims >= 3 ? A.c : 1;
        const size_t n = channel_scalars(A);
        const size_t sa = channel_stride(A), sb = channel_stride(B), st = channel_stride(top);
        const int op = op_type;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
            binary_run(op, (const S*)A.data + sa * q, (const S*)B.data + sb * q, (S*)top.data + st * q, n);
        return 0;
    }

    // whether v holds one value per channel of the 3-D/4-D blob m (per row
    // of a 2-D one: 1-D [h] or 2-D [1,h]), in m's elempack and scalar type
    static bool per_channel_of(const Mat& v, const Mat& m)
    {
        if (v.empty() || m.empty() || m.dims < 2 || v.elembits() != m.elembits() || !(dispatchable_pack(m.elempack) || m.elempack == 8))
            return false;
        if (v.dims == 1)
            return v.w * v.elempack == (m.dims == 2 ? m.h : m.c) * m.elempack;
        if (m.dims == 2)
            return v.dims == 2 && v.w == 1 && v.h == m.h && v.elempack == m.elempack;
        return v.dims == m.dims && v.w == 1 && v.h == 1 && v.d == 1 && v.c == m.c && v.elempack == m.elempack;
    }

    // whether v is one row along w of the 2-D..4-D blob m (its other axes 1,
    // or 1-D where the broadcasting rules read it along w), in m's scalar type
    static bool row_of(const Mat& v, const Mat& m)
    {
        if (v.empty() || m.empty() || m.dims < 2 || v.elembits() != m.elembits() || !(dispatchable_pack(m.elempack) || m.elempack == 8))
            return false;
        if (v.dims == 1)
        {
            // 1-D [n]: per row / per channel when n matches h (2-D) or c, else along w
            const int n = v.w * v.elempack;
            const int outer = (m.dims == 2 ? m.h : m.c) * m.elempack;
            return n == m.w && n != outer;
        }
        return v.dims == m.dims && v.elempack == 1 && v.w == m.w && v.h == 1 && v.d == 1 && v.c == 1
               && !(m.dims == 2 && m.h * m.elempack == 1);
    }

    // op(M, V) (or op(V, M) when v_first) with V one row of M's w scalars
    // (a 1-D blob keeps its scalars in order whatever its elempack)
    template<class S>
    int per_row(const Mat& M, const Mat& V, bool v_first, Mat& top, const Option& opt) const
    {
        top.create_like(M, opt.blob_allocator);
        if (top.empty())
            return -100;
        const int P = M.elempack;
        const int w = M.w;
        // rows of w packed elements: per channel (d x h rows), or a 2-D blob's h
        const int channels = M.dims >= 3 ? M.c : 1;
        const int rows = M.dims == 2 ? M.h : M.h * M.d;
        const size_t sm = channel_stride(M), st = channel_stride(top);
        const S* vp = (const S*)V.data;
        const int op = op_type;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int t = 0; t < channels * rows; t++)
        {
            const int q = t / rows, r = t % rows;
            const S* m = (const S*)M.data + sm * q + (size_t)r * w * P;
            S* out = (S*)top.data + st * q + (size_t)r * w * P;
            if (P == 1)
            {
                if (v_first)
                    binary_run(op, vp, m, out, (size_t)w);
                else
                    binary_run(op, m, vp, out, (size_t)w);
                continue;
            }
            for (int x = 0; x < w; x++)
            {
                const float vx = simd::VF<1>::load(vp + x);
                for (int k = 0; k < P; k += 4)
                {
                    // 4 lanes a step: every pack (4, 8, 16) on every ISA
                    typedef simd::VF<4> V4;
                    const typename V4::T vv = V4::set1(vx), mv = V4::load(m + (size_t)x * P + k);
                    V4::store(out + (size_t)x * P + k, v_first ? binary_kernel<V4>(op, vv, mv) : binary_kernel<V4>(op, mv, vv));
                }
            }
        }
        return 0;
    }

    // whether p is one plane of the 3-D fp32 blob m (its w and h, one channel)
    static bool plane_of(const Mat& p, const Mat& m)
    {
        return m.dims == 3 && p.dims == 3 && p.c == 1 && p.elempack == 1 && p.w == m.w && p.h == m.h
               && (m.w > 1 || m.h > 1) && m.elembits() == 32 && p.elembits() == 32;
    }

    // whether p is a 3-D fp32 plane (one channel) and v a 3-D fp32 blob of one
    // value per channel (w = h = 1) whose broadcast gives (p.w, p.h, v's channels)
    static bool plane_and_channels(const Mat& p, const Mat& v)
    {
        return p.dims == 3 && v.dims == 3 && p.c == 1 && p.elempack == 1 && v.w == 1 && v.h == 1 && v.c * v.elempack > 1
               && (p.w > 1 || p.h > 1) && p.elembits() == 32 && v.elembits() == 32;
    }

    // op(A, Pl) with Pl one plane broadcast over A's channels; -2: no kernel
    // for A's elempack
    static int per_plane(const Mat& A, const Mat& Pl, int op, Mat& top, const Option& opt)
    {
        const int ep = A.elempack;
        if (ep != 1 && !dispatchable_pack(ep))
            return -2;
        top.create_like(A, opt.blob_allocator);
        if (top.empty())
            return -100;
        const size_t plane = (size_t)A.w * A.h;
        const float* pp = Pl;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < A.c; q++)
        {
            const float* a = (const float*)A.data + A.cstep * ep * q;
            float* out = (float*)top.data + top.cstep * ep * q;
            if (ep == 1)
            {
                binary_run<float>(op, a, pp, out, plane);
                continue;
            }
            KITE_CPU_DISPATCH_PACK(P, ep, {
                typedef simd::VF<P> V;
                for (size_t i = 0; i < plane; i++)
                    V::store(out + i * P, binary_kernel<V>(op, V::load(a + i * P), V::set1(pp[i])));
            })
        }
        return 0;
    }

    // op(Pl, C): Pl one plane (w, h, 1), C one value per channel (1, 1, c);
    // the output (w, h, c) takes C's elempack. -2: no kernel for it
    static int plane_by_channel(const Mat& Pl, const Mat& C, int op, Mat& top, const Option& opt)
    {
        const int ep = C.elempack;
        if (ep != 1 && !dispatchable_pack(ep))
            return -2;
        top.create(Pl.w, Pl.h, C.c, C.elemsize, ep, opt.blob_allocator);
        if (top.empty())
            return -100;
        const size_t plane = (size_t)Pl.w * Pl.h;
        const float* pp = Pl;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < C.c; q++)
        {
            const float* c = (const float*)C.data + C.cstep * ep * q;
            float* out = (float*)top.data + top.cstep * ep * q;
            if (ep == 1)
            {
                const float cv = c[0];
                for (size_t i = 0; i < plane; i++)
                    out[i] = BinaryOp::apply(op, pp[i], cv);
                continue;
            }
            KITE_CPU_DISPATCH_PACK(P, ep, {
                typedef simd::VF<P> V;
                const typename V::T vc = V::load(c);
                for (size_t i = 0; i < plane; i++)
                    V::store(out + i * P, binary_kernel<V>(op, V::set1(pp[i]), vc));
            })
        }
        return 0;
    }

    // whether m holds one fp32 value
    static bool single_value(const Mat& m)
    {
        return !m.empty() && m.elembits() == 32 && m.elempack == 1 && (size_t)m.w * m.h * m.d * m.c == 1;
    }

    // op(A, v) element-wise on a copy of A (any dims and elempack)
    static int against_value(const Mat& A, float v, int op, Mat& top, const Option& opt)
    {
        top = A.clone(opt.blob_allocator);
        if (top.empty())
            return -100;
        return unary_inplace_cpu(top, opt, [op, v](auto tag, auto x) {
            typedef decltype(tag) V;
            return binary_kernel<V>(op, x, V::set1(v));
        });
    }

    // two operands of one rank (3 or 4), every axis the output's or 1; the
    // channels either the output's (in its elempack P) or 1 (elempack 1: one
    // value over the P lanes)
    struct Broadcast
    {
        int w, h, d, c, P;
    };

    static bool broadcast_fits(const Mat& A, const Mat& B, Broadcast& bc)
    {
        if (A.empty() || B.empty() || A.dims != B.dims || A.dims < 3 || A.elembits() != B.elembits())
            return false;
        int* out[4] = {&bc.w, &bc.h, &bc.d, &bc.c};
        const int as[4] = {A.w, A.h, A.d, A.c * A.elempack}, bs[4] = {B.w, B.h, B.d, B.c * B.elempack};
        for (int i = 0; i < 4; i++)
        {
            if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1)
                return false;
            *out[i] = std::max(as[i], bs[i]);
        }
        bc.P = as[3] == bc.c ? A.elempack : B.elempack;
        for (const Mat* m : {&A, &B})
            if ((m->c * m->elempack == bc.c && m->elempack != bc.P) || (m->c * m->elempack != bc.c && m->elempack != 1))
                return false;
        return bc.P == 1 || (bc.P % 4 == 0 && bc.c % bc.P == 0);
    }

    // one operand's scalar steps along x, y, z and the channel groups (0 on
    // an axis of 1) and whether it has the P lanes or one value for all
    struct Side
    {
        size_t sx, sy, sz, sq;
        bool lanes;
    };

    static Side side_of(const Mat& m)
    {
        const size_t ep = m.elempack;
        Side s;
        s.sx = m.w > 1 ? ep : 0;
        s.sy = m.h > 1 ? (size_t)m.w * ep : 0;
        s.sz = m.d > 1 ? (size_t)m.w * m.h * ep : 0;
        s.sq = m.c > 1 ? m.cstep * ep : 0;
        s.lanes = ep > 1;
        return s;
    }

    template<class S>
    int broadcast(const Mat& A, const Mat& B, const Broadcast& bc, Mat& top, const Option& opt) const
    {
        const size_t es = A.elemsize / A.elempack * bc.P;
        if (A.dims == 4)
            top.create(bc.w, bc.h, bc.d, bc.c / bc.P, es, bc.P, opt.blob_allocator);
        else
            top.create(bc.w, bc.h, bc.c / bc.P, es, bc.P, opt.blob_allocator);
        if (top.empty())
            return -100;
        const Side sa = side_of(A), sb = side_of(B);
        const int P = bc.P, w = bc.w, h = bc.h, d = bc.d, groups = bc.c / bc.P;
        const size_t st = channel_stride(top);
        const int op = op_type;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int t = 0; t < groups * d * h; t++)
        {
            const int q = t / (d * h), z = t / h % d, y = t % h;
            const S* a = (const S*)A.data + sa.sq * q + sa.sz * z + sa.sy * y;
            const S* b = (const S*)B.data + sb.sq * q + sb.sz * z + sb.sy * y;
            S* out = (S*)top.data + st * q + ((size_t)z * h + y) * w * P;
            if (P == 1)
            {
                typedef simd::VF<1> V1;
                for (int x = 0; x < w; x++)
                    V1::store(out + x, binary_kernel<V1>(op, V1::load(a + sa.sx * x), V1::load(b + sb.sx * x)));
                continue;
            }
            typedef simd::VF<4> V4;
            for (int x = 0; x < w; x++)
            {
                const S* ax = a + sa.sx * x;
                const S* bx = b + sb.sx * x;
                // 4 lanes a step: every pack (4, 8, 16) on every ISA
                for (int k = 0; k < P; k += 4)
                {
                    const typename V4::T va = sa.lanes ? V4::load(ax + k) : V4::set1(simd::VF<1>::load(ax));
                    const typename V4::T vb = sb.lanes ? V4::load(bx + k) : V4::set1(simd::VF<1>::load(bx));
                    V4::store(out + (size_t)x * P + k, binary_kernel<V4>(op, va, vb));
                }
            }
        }
        return 0;
    }

    // op(a, b) as op'(b, a), or -1
    static int swapped_op(int op)
    {
        switch (op)
        {
        case Operation_ADD:
        case Operation_MUL:
        case Operation_MAX:
        case Operation_MIN:
            return op;
        case Operation_SUB:
            return Operation_RSUB;
        case Operation_RSUB:
            return Operation_SUB;
        case Operation_DIV:
            return Operation_RDIV;
        case Operation_RDIV:
            return Operation_DIV;
        default:
            return -1;
        }
    }

    // op(A, V) with V one value per channel of A
    static int per_channel_dispatch(const Mat& A, const Mat& V, int op, Mat& top, const Option& opt)
    {
        const int ep = A.elempack;
        if (!dispatchable_pack(ep))
        {
            // wider than this ISA's vectors (NEON's fp16 storage on arm82
            // packs by 8): each packed element as ep / 4 vectors of 4
            if (A.elembits() == 16)
                return per_channel<4, unsigned short>(A, V, op, top, opt);
            return per_channel<4, float>(A, V, op, top, opt);
        }
        if (A.elembits() == 16)
        {
            KITE_CPU_DISPATCH_PACK(P, ep, return per_channel<P, unsigned short>(A, V, op, top, opt))
        }
        KITE_CPU_DISPATCH_PACK(P, ep, return per_channel<P, float>(A, V, op, top, opt))
    }

    // P: the vector width, a divisor of A's elempack
    template<int P, class S>
    static int per_channel(const Mat& A, const Mat& B, int op, Mat& top, const Option& opt)
    {
        top.create_like(A, opt.blob_allocator);
        if (top.empty())
            return -100;
        const int ep = A.elempack;
        // the groups of ep channels (rows of a 2-D blob): scalars and strides
        const int groups = A.dims == 2 ? A.h : A.c;
        const size_t n = A.dims == 2 ? (size_t)A.w * ep : channel_scalars(A);
        const size_t sa = A.dims == 2 ? n : channel_stride(A), st = A.dims == 2 ? n : channel_stride(top);
        // a 1-D blob keeps its scalars in order whatever its elempack; a
        // 2-D [1,h] one has group q's ep values at unit q, a 3-D/4-D one at
        // the start of channel q
        const size_t sb = B.dims == 1 ? (size_t)ep : B.dims == 2 ? (size_t)B.w * ep : B.cstep * ep;
        const S* bp = (const S*)B.data;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < groups; q++)
        {
            const S* a = (const S*)A.data + sa * q;
            S* out = (S*)top.data + st * q;
            if (ep == P)
            {
                binary_run_repeat<P, S>(op, a, bp + sb * q, out, n);
                continue;
            }
            typedef simd::VF<P> V;
            for (int k = 0; k < ep; k += P)
            {
                const typename V::T vb = V::load(bp + sb * q + k);
                for (size_t i = k; i < n; i += ep)
                    V::store(out + i, binary_kernel<V>(op, V::load(a + i), vb));
            }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(BinaryOp_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
