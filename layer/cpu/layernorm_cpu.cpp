// LayerNorm, compiled once per CPU ISA level (x86 and ARM), on elempack 1/4/8/16 blobs,
// fp32 or fp16 storage, in place. The normalised span (a row, a plane or a
// channel) never includes the packed axis, so with elempack P the P lanes are
// P independent spans walked together, one vector per position (vertical);
// with elempack 1 a span is one contiguous run: vectors along it and a
// horizontal sum. Work is split over spans (rows of a 2-D blob included), not
// only over channels. Statistics are fp32 sums in another order than the
// reference's sequential one (rounding differences only).
#include "layernorm.h"
#include "gpu/cpu_fallback.h"
#include "cpu/packing_cpu.h"

#include <cmath>

namespace kite {
namespace KITE_ISA_NS {

class LayerNorm_cpu : public LayerNorm
{
public:
    LayerNorm_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override
    {
        Mat& m = bottom_top_blob;
        const int ep = m.elempack;
        // elempack 8 beyond the widest vector: NEON's fp16 storage on arm82 (two VF<4> per element)
        if (m.empty() || !(dispatchable_pack(ep) || ep == 8) || (m.elembits() != 32 && m.elembits() != 16))
        {
            if (!m.empty())
                note_cpu_layer_on_reference();
            return LayerNorm::forward_inplace(m, opt);
        }
        const int P = m.dims == 1 ? 1 : ep; // a packed 1-D blob is one contiguous run
        const int w = m.dims == 1 ? m.w * ep : m.w;
        const int h = m.dims == 2 ? m.h * ep : m.dims >= 3 ? m.h : 1;
        const int d = m.dims == 4 ? m.d : 1;
        Mat logical = m.shape(); // the unpacked extents, for the reference's rule
        logical.w = w, logical.h = h;
        const int span = norm_span(logical);
        if (span < 0)
            return -1;
        // groups of P lanes, each holding `elems` positions
        const int groups = m.dims >= 3 ? m.c : m.dims == 2 ? m.h : 1;
        const size_t elems = m.dims >= 3 ? (size_t)w * h * d : (size_t)w;
        const size_t gstride = m.dims >= 3 ? m.cstep * P : (size_t)w * P;
        const int spans = (int)(elems / span);
        if (m.elembits() == 16)
        {
            if (P == 8)
                return run<8, unsigned short>((unsigned short*)m.data, groups, spans, span, gstride, opt);
            KITE_CPU_DISPATCH_PACK(Q, P, return run<Q, unsigned short>((unsigned short*)m.data, groups, spans, span, gstride, opt))
        }
        if (P == 8)
            return run<8, float>((float*)m.data, groups, spans, span, gstride, opt);
        KITE_CPU_DISPATCH_PACK(Q, P, return run<Q, float>((float*)m.data, groups, spans, span, gstride, opt))
        return 0;
    }

private:
    template<int P, class S>
    int run(S* data, int groups, int spans, int span, size_t gstride, const Option& opt) const
    {
        const float* gamma = affine ? (const float*)gamma_data : nullptr;
        const float* beta = affine ? (const float*)beta_data : nullptr;
        const int tasks = groups * spans;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int t = 0; t < tasks; t++)
        {
            S* p = data + (size_t)(t / spans) * gstride + (size_t)(t % spans) * span * P;
            if (P == 1)
                horizontal(p, span, gamma, beta);
            else
                vertical<P>(p, span, gamma, beta);
        }
        return 0;
    }

    // P spans side by side: lane l of position i is span l's value i; P wider
    // than the widest vector: P / V::N slices of V::N lanes, one after another
    template<int P, class S>
    void vertical(S* p, int span, const float* gamma, const float* beta) const
    {
        typedef simd::VF<(P < KITE_SIMD_MAX_N ? P : KITE_SIMD_MAX_N)> V;
        for (int k = 0; k < P / V::N; k++)
            vertical_slice<V, P>(p + k * V::N, span, gamma, beta);
    }

    template<class V, int P, class S>
    void vertical_slice(S* p, int span, const float* gamma, const float* beta) const
    {
        typedef typename V::T T;
        T sum = V::zero();
        for (int i = 0; i < span; i++)
            sum = V::add(sum, V::load(p + (size_t)i * P));
        const T n = V::set1((float)span);
        const T mean = V::div(sum, n);
        T sq = V::zero();
        for (int i = 0; i < span; i++)
        {
            T v = V::sub(V::load(p + (size_t)i * P), mean);
            sq = V::fmadd(v, v, sq);
        }
        const T a = V::div(V::set1(1.f), V::sqrt(V::add(V::div(sq, n), V::set1(eps))));
        const T b = V::mul(V::neg(mean), a);
        for (int i = 0; i < span; i++)
        {
            T y = V::fmadd(V::load(p + (size_t)i * P), a, b);
            if (gamma)
                y = V::fmadd(y, V::set1(gamma[i]), V::set1(beta[i]));
            V::store(p + (size_t)i * P, y);
        }
    }

    // one contiguous span
    template<class S>
    void horizontal(S* p, int span, const float* gamma, const float* beta) const
    {
        typedef simd::VF<KITE_SIMD_MAX_N> W;
        typedef simd::VF<1> V1;
        typename W::T acc = W::zero();
        int i = 0;
        for (; i + W::N <= span; i += W::N)
            acc = W::add(acc, W::load(p + i));
        float sum = W::reduce_add(acc);
        for (; i < span; i++)
            sum += V1::load(p + i);
        const float mean = sum / span;
        acc = W::zero();
        const typename W::T vmean = W::set1(mean);
        for (i = 0; i + W::N <= span; i += W::N)
        {
            typename W::T v = W::sub(W::load(p + i), vmean);
            acc = W::fmadd(v, v, acc);
        }
        float sq = W::reduce_add(acc);
        for (; i < span; i++)
        {
            const float v = V1::load(p + i) - mean;
            sq += v * v;
        }
        const float a = 1.f / std::sqrt(sq / span + eps);
        const float b = -mean * a;
        simd::for_widths(span, [&](auto tag, int j) {
            typedef decltype(tag) V;
            typename V::T y = V::fmadd(V::load(p + j), V::set1(a), V::set1(b));
            if (gamma)
                y = V::fmadd(y, V::load(gamma + j), V::load(beta + j));
            V::store(p + j, y);
        });
    }
};

DEFINE_LAYER_CREATOR(LayerNorm_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
