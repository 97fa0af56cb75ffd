// BatchNorm, compiled once per CPU ISA level (x86 and ARM), fp32 or fp16
// storage, in place on blobs of any elempack: y = b * x + a per channel (the
// packing axis: w of a 1-D blob, h of a 2-D one, c otherwise). A packed group
// loads its P channels' a and b as one vector each; an unpacked channel
// broadcasts them over the widest vectors; a 1-D blob is one run of scalars
// against the a and b arrays. An elempack wider than the ISA's vectors (8 on
// NEON: fp16 storage on arm82) runs as several vectors per packed element.
#include "batchnorm.h"
#include "cpu/packing_cpu.h"
#include "cpu/unary_cpu.h"
#include "gpu/cpu_fallback.h"

namespace kite {
namespace KITE_ISA_NS {

class BatchNorm_cpu : public BatchNorm
{
public:
    BatchNorm_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        const int ep = m.elempack;
        if (m.empty() || m.dims < 1 || m.dims > 4 || (m.elembits() != 32 && m.elembits() != 16))
            return BatchNorm::forward_inplace(m, opt); // the reference names the problem
        if (!dispatchable_pack(ep) && ep % 4 != 0)
        {
            note_cpu_layer_on_reference();
            Mat b;
            int ret = to_fp32_pack1(m, b, opt);
            if (ret == 0)
                ret = BatchNorm::forward_inplace(b, opt);
            if (ret == 0)
                m = b;
            return ret;
        }
        const int count = (m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c) * ep;
        if (count != channels)
        {
            KITE_LOGE("BatchNorm '%s': input has %d channels, the layer was made for %d", name.c_str(), count, channels);
            return -1;
        }
        if (!dispatchable_pack(ep))
        {
            // wider than this ISA's vectors (NEON's fp16 storage on arm82 packs
            // by 8): each packed element as ep / 4 vectors of 4
            if (m.elembits() == 16)
                return run<4, unsigned short>(m, opt, ep);
            return run<4, float>(m, opt, ep);
        }
        if (m.elembits() == 16)
        {
            KITE_CPU_DISPATCH_PACK(P, ep, return run<P, unsigned short>(m, opt, P))
        }
        KITE_CPU_DISPATCH_PACK(P, ep, return run<P, float>(m, opt, P))
    }

private:
    // P: the vector width, ep: the elempack (a multiple of P)
    template<int P, class S>
    int run(Mat& m, const Option& opt, int ep) const
    {
        const float* a = a_data;
        const float* b = b_data;
        if (m.dims == 1)
        {
            // the scalars in order, one per channel
            S* p = (S*)m.data;
            const int n = m.w * ep;
            const int nt = n >= 4096 ? opt.num_threads : 1;
            const int chunk = (n + nt - 1) / nt;
            #pragma omp parallel for num_threads(nt)
            for (int t = 0; t < nt; t++)
            {
                const int i0 = t * chunk, i1 = std::min(n, i0 + chunk);
                if (i0 < i1)
                    simd::for_widths(i1 - i0, [&](auto tag, int i) {
                        typedef decltype(tag) V;
                        const int k = i0 + i;
                        V::store(p + k, V::fmadd(V::load(p + k), V::load(b + k), V::load(a + k)));
                    });
            }
            return 0;
        }
        const int groups = m.dims == 2 ? m.h : m.c;
        const size_t plane = m.dims == 2 ? (size_t)m.w : (size_t)m.w * m.h * m.d;
        const size_t stride = m.dims == 2 ? plane * ep : m.cstep * ep;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int g = 0; g < groups; g++)
        {
            S* p = (S*)m.data + stride * g;
            if (P == 1)
            {
                const float ag = a[g], bg = b[g];
                unary_run<false>(p, plane, [ag, bg](auto tag, auto x) {
                    typedef decltype(tag) V;
                    return V::fmadd(x, V::set1(bg), V::set1(ag));
                });
                continue;
            }
            typedef simd::VF<P> V;
            for (int k = 0; k < ep; k += P)
            {
                const typename V::T va = V::load(a + (size_t)g * ep + k), vb = V::load(b + (size_t)g * ep + k);
                for (size_t i = 0; i < plane; i++)
                    V::store(p + i * ep + k, V::fmadd(V::load(p + i * ep + k), vb, va));
            }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(BatchNorm_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
