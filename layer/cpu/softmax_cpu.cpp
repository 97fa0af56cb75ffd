// Softmax, compiled once per CPU ISA level (x86 and ARM): any axis of dims 1..4 blobs on
// elempack 1/4/8/16, fp32 or fp16 storage, in place, exp by simd_math.h's
// exp_ps. Every case is one of three kernels:
//   vertical    the lines along the axis sit side by side in memory (the
//               axis is not the innermost scalar run): vectors across lines
//   horizontal  a line is one contiguous run: vectors along it, then a
//               horizontal max / sum
//   packed axis the axis is the packed one (dims >= 2): per position, the
//               packed groups' vectors, reduced across lanes
#include "softmax.h"
#include "gpu/cpu_fallback.h"
#include "cpu/packing_cpu.h"
#include "simd/simd_math.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

class Softmax_cpu : public Softmax
{
public:
    Softmax_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override
    {
        Mat& m = bottom_top_blob;
        const int dims = m.dims;
        const int a = axis < 0 ? dims + axis : axis;
        // elempack 8 beyond the widest vector: NEON's fp16 storage on arm82 (two VF<4> per element)
        if (m.empty() || a < 0 || a >= dims)
            return Softmax::forward_inplace(m, opt); // the reference reports bad axes
        if (!(dispatchable_pack(m.elempack) || m.elempack == 8))
        {
            note_cpu_layer_on_reference();
            return Softmax::forward_inplace(m, opt);
        }
        if (m.elembits() == 16)
            return run<unsigned short>(m, a, opt);
        if (m.elembits() == 32)
            return run<float>(m, a, opt);
        note_cpu_layer_on_reference();
        return Softmax::forward_inplace(m, opt);
    }

private:
    template<class S>
    int run(Mat& m, int a, const Option& opt) const
    {
        const int P = m.elempack;
        S* data = (S*)m.data;
        if (P > 1 && a == 0 && m.dims >= 2)
        {
            const int groups = m.dims == 2 ? m.h : m.c;
            const size_t plane = m.dims == 2 ? (size_t)m.w : (size_t)m.w * m.h * m.d;
            const size_t gstride = (m.dims == 2 ? (size_t)m.w : m.cstep) * P;
            KITE_CPU_DISPATCH_PACK_WIDE(Q, P, return packed_axis<Q>(data, groups, plane, gstride, opt))
            if (P == 8)
                return packed_axis<8>(data, groups, plane, gstride, opt);
            return packed_axis<4>(data, groups, plane, gstride, opt);
        }
        // axes of the blob (a packed element is P scalars along the last one)
        const BlobAxes b = blob_axes(m);
        const int len = a == 0 && m.dims == 1 ? b.ext[0] * P : b.ext[a];
        size_t inner = P;
        for (int i = a + 1; i < b.n; i++)
            inner *= b.ext[i];
        if (a == 0 && m.dims == 1)
            inner = 1;
        const size_t stride = (size_t)b.st[a] * P; // scalars between line elements (cstep for channels)
        // the start of every outer block (axes before a), in scalars
        std::vector<size_t> outer(1, 0);
        for (int i = 0; i < a; i++)
        {
            std::vector<size_t> next;
            for (size_t s : outer)
                for (int k = 0; k < b.ext[i]; k++)
                    next.push_back(s + b.st[i] * P * k);
            outer.swap(next);
        }
        if (inner == 1)
        {
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int o = 0; o < (int)outer.size(); o++)
                horizontal(data + outer[o], len);
            return 0;
        }
        // vertical: split the inner run in slices so that threads share a block
        const int slice = 64;
        const int nslices = (int)((inner + slice - 1) / slice);
        const int tasks = (int)outer.size() * nslices;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int t = 0; t < tasks; t++)
        {
            const int o = t / nslices, s0 = (t % nslices) * slice;
            const int n = (int)std::min<size_t>(slice, inner - s0);
            vertical(data + outer[o] + s0, len, stride, n);
        }
        return 0;
    }

    // n side-by-side lines of len values, line element k at p[k * stride]
    template<class S>
    static void vertical(S* p, int len, size_t stride, int n)
    {
        simd::for_widths(n, [&](auto tag, int i) {
            typedef decltype(tag) V;
            typename V::T mx = V::load(p + i);
            for (int k = 1; k < len; k++)
                mx = V::max(mx, V::load(p + k * stride + i));
            typename V::T sum = V::zero();
            for (int k = 0; k < len; k++)
            {
                typename V::T e = simd::exp_ps<V>(V::sub(V::load(p + k * stride + i), mx));
                V::store(p + k * stride + i, e);
                sum = V::add(sum, e);
            }
            for (int k = 0; k < len; k++)
                V::store(p + k * stride + i, V::div(V::load(p + k * stride + i), sum));
        });
    }

    // one contiguous line
    template<class S>
    static void horizontal(S* p, int len)
    {
        float mx = simd::VF<1>::load(p);
        simd::for_widths(len, [&](auto tag, int i) {
            typedef decltype(tag) V;
            mx = std::max(mx, V::reduce_max(V::load(p + i)));
        });
        float sum = 0.f;
        simd::for_widths(len, [&](auto tag, int i) {
            typedef decltype(tag) V;
            typename V::T e = simd::exp_ps<V>(V::sub(V::load(p + i), V::set1(mx)));
            V::store(p + i, e);
            sum += V::reduce_add(e);
        });
        simd::for_widths(len, [&](auto tag, int i) {
            typedef decltype(tag) V;
            V::store(p + i, V::div(V::load(p + i), V::set1(sum)));
        });
    }

    // the axis is the packed one: scalar channel g * P + lane; a packed
    // element wider than the widest vector is P / V::N vectors side by side
    template<int P, class S>
    static int packed_axis(S* data, int groups, size_t plane, size_t gstride, const Option& opt)
    {
        typedef simd::VF<(P < KITE_SIMD_MAX_N ? P : KITE_SIMD_MAX_N)> V;
        const int K = P / V::N;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int i = 0; i < (int)plane; i++)
        {
            S* p = data + (size_t)i * P;
            typename V::T mv = V::load(p);
            for (int g = 0; g < groups; g++)
                for (int k = 0; k < K; k++)
                    mv = V::max(mv, V::load(p + g * gstride + k * V::N));
            const typename V::T mx = V::set1(V::reduce_max(mv));
            typename V::T sv = V::zero();
            for (int g = 0; g < groups; g++)
                for (int k = 0; k < K; k++)
                {
                    typename V::T e = simd::exp_ps<V>(V::sub(V::load(p + g * gstride + k * V::N), mx));
                    V::store(p + g * gstride + k * V::N, e);
                    sv = V::add(sv, e);
                }
            const typename V::T sum = V::set1(V::reduce_add(sv));
            for (int g = 0; g < groups; g++)
                for (int k = 0; k < K; k++)
                    V::store(p + g * gstride + k * V::N, V::div(V::load(p + g * gstride + k * V::N), sum));
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Softmax_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
