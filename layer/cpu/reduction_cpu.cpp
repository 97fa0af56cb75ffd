// Reduction, compiled once per CPU ISA level (x86 and ARM), fp32 on blobs of
// any elempack: every operation (sum, asum, sumsq, mean, max, min, prod, L1,
// L2, logsum, logsumexp), any set of axes, reduce_all, keepdims, coeff.
// The axes inside a channel (w, h, d) become two offset lists: one entry per
// output position (the kept axes) and one per reduced element (the reduced
// axes; a plain run when they are the innermost ones). Then
//   - the packing axis kept (the usual case: a mean over h and w): each packed
//     group's P channels reduce side by side in one vector of P lanes and the
//     output keeps the elempack;
//   - the packing axis reduced: the lanes of every group fold into one
//     vector that is combined across its lanes at the end (unpacked output).
// An unpacked run reduces with the widest vector and a final fold.
#include "reduction.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"
#include "simd/simd_math.h"

#include <cfloat>
#include <cmath>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

namespace {

// what an operation does to each element (PRE), how it folds (FOLD) and
// what it does to the folded value (finish)
enum
{
    PRE_NONE,
    PRE_ABS,
    PRE_SQUARE,
    PRE_EXP
};
enum
{
    FOLD_ADD,
    FOLD_MAX,
    FOLD_MIN,
    FOLD_MUL
};

template<int PRE, int FOLD>
struct RedOp
{
    static float init() { return FOLD == FOLD_MAX ? -FLT_MAX : FOLD == FOLD_MIN ? FLT_MAX : FOLD == FOLD_MUL ? 1.f : 0.f; }

    template<class V>
    static typename V::T pre(typename V::T x)
    {
        if (PRE == PRE_ABS)
            return V::abs(x);
        if (PRE == PRE_SQUARE)
            return V::mul(x, x);
        if (PRE == PRE_EXP)
            return simd::exp_ps<V>(x);
        return x;
    }

    template<class V>
    static typename V::T fold(typename V::T a, typename V::T b)
    {
        if (FOLD == FOLD_MAX)
            return V::max(a, b);
        if (FOLD == FOLD_MIN)
            return V::min(a, b);
        if (FOLD == FOLD_MUL)
            return V::mul(a, b);
        return V::add(a, b);
    }

    // fold the lanes of v into one scalar
    template<class V>
    static float lanes(typename V::T v)
    {
        float t[16];
        V::store(t, v);
        float a = t[0];
        for (int l = 1; l < V::N; l++)
            a = fold<simd::VF<1> >(a, t[l]);
        return a;
    }
};

} // namespace

class Reduction_cpu : public Reduction
{
public:
    Reduction_cpu()
    {
        support_packing = true;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        const int ep = bottom_blob.elempack;
        if (bottom_blob.empty() || bottom_blob.dims < 1 || bottom_blob.dims > 4 || bottom_blob.elemsize != 4u * ep
            || !dispatchable_pack(ep))
        {
            note_cpu_layer_on_reference();
            Mat b;
            int ret = to_fp32_pack1(bottom_blob, b, opt);
            return ret != 0 ? ret : Reduction::forward(b, top_blob, opt);
        }
        switch (operation)
        {
        case OP_SUM:
        case OP_MEAN:
        case OP_LOGSUM:
            return dispatch<PRE_NONE, FOLD_ADD>(bottom_blob, top_blob, opt);
        case OP_ASUM:
        case OP_L1:
            return dispatch<PRE_ABS, FOLD_ADD>(bottom_blob, top_blob, opt);
        case OP_SUMSQ:
        case OP_L2:
            return dispatch<PRE_SQUARE, FOLD_ADD>(bottom_blob, top_blob, opt);
        case OP_MAX:
            return dispatch<PRE_NONE, FOLD_MAX>(bottom_blob, top_blob, opt);
        case OP_MIN:
            return dispatch<PRE_NONE, FOLD_MIN>(bottom_blob, top_blob, opt);
        case OP_PROD:
            return dispatch<PRE_NONE, FOLD_MUL>(bottom_blob, top_blob, opt);
        default: // OP_LOGSUMEXP
            return dispatch<PRE_EXP, FOLD_ADD>(bottom_blob, top_blob, opt);
        }
    }

private:
    // the shared set-up of both cases
    struct Plan
    {
        int groups;                  // packed groups along axis 0
        size_t group_stride;         // floats between groups
        bool reduce0;                // axis 0 (the packing axis) reduced
        std::vector<size_t> kept;    // per output position: offset in packed elements
        std::vector<size_t> reduced; // per reduced element inside a channel: offset in packed elements
        bool reduced_run;            // reduced[i] == i
        size_t count;                // scalars folded into each output value
    };

    float finish(float v, size_t count) const
    {
        if (operation == OP_MEAN)
            v = v / count;
        else if (operation == OP_L2)
            v = sqrtf(v);
        else if (operation == OP_LOGSUM || operation == OP_LOGSUMEXP)
            v = logf(v);
        return v * coeff;
    }

    template<int PRE, int FOLD>
    int dispatch(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        const int ep = bottom_blob.elempack;
        KITE_CPU_DISPATCH_PACK(P, ep, return run<PRE, FOLD, P>(bottom_blob, top_blob, opt))
    }

    template<int PRE, int FOLD, int P>
    int run(const Mat& in, Mat& top, const Option& opt) const
    {
        typedef RedOp<PRE, FOLD> Op;
        typedef simd::VF<P> V;
        typedef typename V::T T;
        const int dims = in.dims;
        bool reduce[4];
        if (reduced_axes(dims, reduce) != 0)
            return -1;
        Plan plan;
        // the axes inside a channel, outermost first, with their strides in packed elements
        int ext[3] = {1, 1, 1};
        size_t st[3] = {0, 0, 0};
        bool red[3] = {false, false, false};
        if (dims == 1)
            plan.groups = in.w, plan.group_stride = P;
        else if (dims == 2)
        {
            plan.groups = in.h, plan.group_stride = (size_t)in.w * P;
            ext[2] = in.w, st[2] = 1, red[2] = reduce[1];
        }
        else
        {
            plan.groups = in.c, plan.group_stride = in.cstep * P;
            ext[1] = in.h, st[1] = in.w, red[1] = reduce[dims - 2];
            ext[2] = in.w, st[2] = 1, red[2] = reduce[dims - 1];
            if (dims == 4)
                ext[0] = in.d, st[0] = (size_t)in.w * in.h, red[0] = reduce[1];
        }
        plan.reduce0 = reduce[0];
        plan.kept.assign(1, 0);
        plan.reduced.assign(1, 0);
        for (int a = 0; a < 3; a++)
        {
            std::vector<size_t>& list = red[a] ? plan.reduced : plan.kept;
            std::vector<size_t> next;
            next.reserve(list.size() * ext[a]);
            for (size_t base : list)
                for (int i = 0; i < ext[a]; i++)
                    next.push_back(base + i * st[a]);
            list.swap(next);
        }
        plan.reduced_run = true;
        for (size_t i = 0; i < plan.reduced.size(); i++)
            plan.reduced_run = plan.reduced_run && plan.reduced[i] == i;
        plan.count = plan.reduced.size() * (plan.reduce0 ? (size_t)plan.groups * P : 1);

        // the output shape (scalars, outermost first): keepdims keeps the rank
        int lext[4] = {plan.groups * P, 1, 1, 1};
        for (int a = 1; a < dims; a++)
            lext[a] = ext[3 - dims + a];
        int shape[4];
        int rank = 0;
        for (int a = 0; a < dims; a++)
        {
            if (keepdims)
                shape[rank++] = reduce[a] ? 1 : lext[a];
            else if (!reduce[a])
                shape[rank++] = lext[a];
        }
        if (rank == 0)
            shape[rank++] = 1;
        // kept packing axis: the output's outermost axis is it, packed alike
        const int Q = plan.reduce0 ? 1 : P;
        if (rank == 1)
            top.create(shape[0] / Q, 4u * Q, Q, opt.blob_allocator);
        else if (rank == 2)
            top.create(shape[1], shape[0] / Q, 4u * Q, Q, opt.blob_allocator);
        else if (rank == 3)
            top.create(shape[2], shape[1], shape[0] / Q, 4u * Q, Q, opt.blob_allocator);
        else
            top.create(shape[3], shape[2], shape[1], shape[0] / Q, 4u * Q, Q, opt.blob_allocator);
        if (top.empty())
            return -100;

        const float* src = (const float*)in.data;
        const size_t nk = plan.kept.size();
        const size_t nr = plan.reduced.size();
        if (!plan.reduce0)
        {
            // output group g holds the kept positions of input group g in order
            const size_t out_group = top.dims == 1 ? (size_t)P : top.dims == 2 ? (size_t)top.w * P : top.cstep * P;
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int g = 0; g < plan.groups; g++)
            {
                float* out = (float*)top.data + out_group * g;
                for (size_t o = 0; o < nk; o++)
                {
                    const float* p = src + plan.group_stride * g + plan.kept[o] * P;
                    float lanes[16];
                    if (P == 1 && plan.reduced_run)
                        lanes[0] = fold_run<Op>(p, nr, Op::init());
                    else
                    {
                        T acc = V::set1(Op::init());
                        acc = fold_packed<Op, V>(p, plan, acc);
                        V::store(lanes, acc);
                    }
                    for (int l = 0; l < P; l++)
                        out[o * P + l] = finish(lanes[l], plan.count);
                }
            }
            return 0;
        }
        // packing axis reduced: output position o folds every group; the
        // output is unpacked, o's address honours its channel padding
        const size_t out_plane = top.dims >= 3 ? (size_t)top.w * top.h * top.d : 1;
        const size_t out_cstep = top.dims >= 3 ? top.cstep : 1;
        float* out = (float*)top.data;
        if ((int)nk < opt.num_threads && plan.groups > 1)
        {
            // few outputs (reduce_all): the groups in parallel, then their lanes
            std::vector<float> partial((size_t)plan.groups * P);
            for (size_t o = 0; o < nk; o++)
            {
                #pragma omp parallel for num_threads(opt.num_threads)
                for (int g = 0; g < plan.groups; g++)
                {
                    const float* p = src + plan.group_stride * g + plan.kept[o] * P;
                    if (P == 1 && plan.reduced_run)
                        partial[g] = fold_run<Op>(p, nr, Op::init());
                    else
                        V::store(&partial[(size_t)g * P], fold_packed<Op, V>(p, plan, V::set1(Op::init())));
                }
                float v = Op::init();
                for (size_t i = 0; i < partial.size(); i++)
                    v = Op::template fold<simd::VF<1> >(v, partial[i]);
                out[o / out_plane * out_cstep + o % out_plane] = finish(v, plan.count);
            }
            return 0;
        }
        #pragma omp parallel for num_threads(opt.num_threads)
        for (long o = 0; o < (long)nk; o++)
        {
            T acc = V::set1(Op::init());
            float s = Op::init();
            for (int g = 0; g < plan.groups; g++)
            {
                const float* p = src + plan.group_stride * g + plan.kept[o] * P;
                if (P == 1 && plan.reduced_run)
                    s = fold_run<Op>(p, nr, s);
                else
                    acc = fold_packed<Op, V>(p, plan, acc);
            }
            const float v = Op::template fold<simd::VF<1> >(s, Op::template lanes<V>(acc));
            out[(size_t)o / out_plane * out_cstep + (size_t)o % out_plane] = finish(v, plan.count);
        }
        return 0;
    }

    // fold the reduced elements of one group at p (packed by V::N lanes) into acc
    template<class Op, class V>
    static typename V::T fold_packed(const float* p, const Plan& plan, typename V::T acc)
    {
        const int P = V::N;
        const size_t nr = plan.reduced.size();
        if (plan.reduced_run)
        {
            for (size_t i = 0; i < nr; i++)
                acc = Op::template fold<V>(acc, Op::template pre<V>(V::load(p + i * P)));
            return acc;
        }
        for (size_t i = 0; i < nr; i++)
            acc = Op::template fold<V>(acc, Op::template pre<V>(V::load(p + plan.reduced[i] * P)));
        return acc;
    }

    // fold n unpacked scalars at p into a, the widest vectors first
    template<class Op>
    static float fold_run(const float* p, size_t n, float a)
    {
        typedef simd::VF<KITE_SIMD_MAX_N> W;
        size_t i = 0;
        if (n >= (size_t)W::N)
        {
            typename W::T acc = W::set1(Op::init());
            for (; i + W::N <= n; i += W::N)
                acc = Op::template fold<W>(acc, Op::template pre<W>(W::load(p + i)));
            a = Op::template fold<simd::VF<1> >(a, Op::template lanes<W>(acc));
        }
        for (; i < n; i++)
            a = Op::template fold<simd::VF<1> >(a, Op::template pre<simd::VF<1> >(p[i]));
        return a;
    }
};

DEFINE_LAYER_CREATOR(Reduction_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
