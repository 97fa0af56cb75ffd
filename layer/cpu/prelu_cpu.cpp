// PReLU (y = x < 0 ? slope * x : x), compiled once per CPU ISA level, fp32 or
// fp16 storage, in place on blobs of any dims and elempack: one shared slope
// over the whole blob as one element-wise map, one slope per channel (w of a
// 1-D blob, h of a 2-D one, c otherwise; the packing axis) with a packed
// group's P slopes as one vector. max(x, 0) + slope * min(x, 0) is the
// reference's value for every finite x.
#include "cpu/packing_cpu.h"
#include "cpu/unary_cpu.h"
#include "gpu/cpu_fallback.h"
#include "prelu.h"

namespace kite {
namespace KITE_ISA_NS {

class PReLU_cpu : public PReLU
{
public:
    PReLU_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& m, const Option& opt) const override
    {
        if (m.empty() || m.dims < 1 || m.dims > 4 || (m.elembits() != 32 && m.elembits() != 16) || slope_data.empty())
            return PReLU::forward_inplace(m, opt); // the reference names the problem
        const float* slopes = slope_data;
        if (num_slope == 1)
        {
            const float s = slopes[0];
            return unary_inplace_cpu(m, opt, [s](auto tag, auto x) {
                typedef decltype(tag) V;
                return V::fmadd(V::min(x, V::zero()), V::set1(s), V::max(x, V::zero()));
            });
        }
        const int ep = m.elempack;
        const int count = pack_axis(m).count;
        if (count != num_slope)
        {
            KITE_LOGE("PReLU '%s': input has %d channels, %d slopes", name.c_str(), count, num_slope);
            return -1;
        }
        // a pack this ISA has no vector of (arm82's fp16 pack 8 on NEON's 4
        // lanes): 4 lanes at a time
        if (ep != 1 && !dispatchable_pack(ep) && ep % 4 == 0 && dispatchable_pack(4))
            return m.elembits() == 16 ? run_by4<unsigned short>(m, opt, slopes) : run_by4<float>(m, opt, slopes);
        if (ep == 1 || !dispatchable_pack(ep))
        {
            if (ep != 1)
            {
                note_cpu_layer_on_reference();
                Mat b;
                int r = to_fp32_pack1(m, b, opt);
                if (r == 0)
                    r = PReLU::forward_inplace(b, opt);
                if (r == 0)
                    m = b;
                return r;
            }
            return m.elembits() == 16 ? run<1, unsigned short>(m, opt, slopes) : run<1, float>(m, opt, slopes);
        }
        if (m.elembits() == 16)
        {
            KITE_CPU_DISPATCH_PACK(P, ep, return run<P, unsigned short>(m, opt, slopes))
        }
        KITE_CPU_DISPATCH_PACK(P, ep, return run<P, float>(m, opt, slopes))
    }

private:
    // any elempack that is a multiple of 4, 4 lanes a step (dims 2-4; dims 1
    // is one slope per scalar in order, as run's)
    template<class S>
    static int run_by4(Mat& m, const Option& opt, const float* slopes)
    {
        if (m.dims == 1)
            return run<4, S>(m, opt, slopes);
        typedef simd::VF<4> V;
        const int ep = m.elempack;
        const PackAxis ax = pack_axis(m); // rows of dims 2, channels else
        const int groups = ax.count / ax.ep;
        const size_t plane = ax.plane, stride = ax.unit_bytes / sizeof(S);
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int g = 0; g < groups; g++)
        {
            S* p = (S*)m.data + stride * g;
            for (int k = 0; k < ep; k += 4)
            {
                const typename V::T vs = V::load(slopes + (size_t)g * ep + k);
                for (size_t i = 0; i < plane; i++)
                {
                    const typename V::T x = V::load(p + i * ep + k);
                    V::store(p + i * ep + k, V::fmadd(V::min(x, V::zero()), vs, V::max(x, V::zero())));
                }
            }
        }
        return 0;
    }

    // P: the elempack (1: one slope per run of scalars)
    template<int P, class S>
    static int run(Mat& m, const Option& opt, const float* slopes)
    {
        if (m.dims == 1)
        {
            // one slope per scalar, in order whatever the elempack
            S* p = (S*)m.data;
            const int n = m.w * m.elempack;
            simd::for_widths(n, [&](auto tag, int i) {
                typedef decltype(tag) V;
                const typename V::T x = V::load(p + i);
                V::store(p + i, V::fmadd(V::min(x, V::zero()), V::load(slopes + i), V::max(x, V::zero())));
            });
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
                const float s = slopes[g];
                unary_run<false>(p, plane, [s](auto tag, auto x) {
                    typedef decltype(tag) V;
                    return V::fmadd(V::min(x, V::zero()), V::set1(s), V::max(x, V::zero()));
                });
                continue;
            }
            typedef simd::VF<P> V;
            const typename V::T vs = V::load(slopes + (size_t)g * P);
            for (size_t i = 0; i < plane; i++)
            {
                const typename V::T x = V::load(p + i * P);
                V::store(p + i * P, V::fmadd(V::min(x, V::zero()), vs, V::max(x, V::zero())));
            }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(PReLU_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
