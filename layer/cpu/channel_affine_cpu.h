// Per-channel y = b[c] * x + a[c] in place on a blob of any dims and elempack,
// fp32 or fp16 storage (S), the driver of BatchNorm, Scale and Bias (cpu/).
// The channel axis is the packing axis: w of a 1-D blob, h of a 2-D one, c
// otherwise. P: the vector width; ep: the elempack (a multiple of P). A packed
// group loads its P channels' a and b as one vector each; an unpacked channel
// broadcasts them over the widest vectors; a 1-D blob is one run of scalars
// against the a and b arrays (split between threads when long).
#ifndef KITE_LAYER_CPU_CHANNEL_AFFINE_CPU_H
#define KITE_LAYER_CPU_CHANNEL_AFFINE_CPU_H

#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"
#include <string>
#include "cpu/unary_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

template<int P, class S>
static int channel_affine_run(Mat& m, const Option& opt, int ep, const float* a, const float* b)
{
    if (m.dims == 1)
    {
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
    const PackAxis ax = pack_axis(m); // rows of dims 2, channels else
    const int groups = ax.count / ax.ep;
    const size_t plane = ax.plane, stride = ax.unit_bytes / sizeof(S);
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

// The dispatch of the three drivers: 0 done, 1 the caller runs its reference on
// to_fp32_pack1 (an elempack no kernel takes), 2 the channel count differs
// (the caller's reference names the problem), else the kernel's status.
static inline int channel_affine(Mat& m, const Option& opt, int channels, const float* a, const float* b)
{
    const int ep = m.elempack;
    if (!dispatchable_pack(ep) && ep % 4 != 0)
        return 1;
    const int count = pack_axis(m).count;
    if (count != channels)
        return 2;
    if (!dispatchable_pack(ep))
    {
        // wider than this ISA's vectors (NEON's fp16 storage on arm82 packs
        // by 8): each packed element as ep / 4 vectors of 4
        if (m.elembits() == 16)
            return channel_affine_run<4, unsigned short>(m, opt, ep, a, b);
        return channel_affine_run<4, float>(m, opt, ep, a, b);
    }
    if (m.elembits() == 16)
    {
        KITE_CPU_DISPATCH_PACK(P, ep, return channel_affine_run<P, unsigned short>(m, opt, P, a, b))
    }
    KITE_CPU_DISPATCH_PACK(P, ep, return channel_affine_run<P, float>(m, opt, P, a, b))
}

// A driver's forward: channel_affine, a clear error when the blob's channels
// are not the layer's (what: "BatchNorm 'name'" style prefix written by the
// caller's log), and the reference (on fp32 pack 1) for a pack this ISA has
// no kernel for. ref: the reference class's forward_inplace.
template<class Ref>
static inline int channel_affine_forward(Mat& m, const Option& opt, int channels, const float* a, const float* b,
                                         const char* type, const std::string& name, const Ref& ref)
{
    const int ret = channel_affine(m, opt, channels, a, b);
    if (ret == 2)
    {
        KITE_LOGE("%s '%s': input has %d channels, the layer has %d", type, name.c_str(),
                  (m.dims == 1 ? m.w : m.dims == 2 ? m.h : m.c) * m.elempack, channels);
        return -1;
    }
    if (ret != 1)
        return ret;
    note_cpu_layer_on_reference();
    Mat fp32;
    int r = to_fp32_pack1(m, fp32, opt);
    if (r == 0)
        r = ref(fp32);
    if (r == 0)
        m = fp32;
    return r;
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_CPU_CHANNEL_AFFINE_CPU_H
