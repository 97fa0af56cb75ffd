// LRN, compiled once per CPU ISA level (x86 and ARM): across channels and within
// channel on elempack 1/4/8/16 blobs, fp32 or fp16 storage, in place.
// (bias + alpha/n * ss)^-beta is exp(-beta * log(...)) with simd_math.h's
// exp_ps/log_ps (relative error a few 1e-7). The sums of squares add the same
// terms in the same order as the reference. A bias <= 0 (the power of a
// possibly zero base) runs the reference on an unpacked copy.
//
// Across channels, elempack 1: window sums of whole square planes, vectors
// along the plane. Packed: one pixel at a time, its channels' squares
// gathered into a zero-padded row (a pixel's channels are P contiguous scalars
// per packed channel), so the window is local_size unaligned loads at
// consecutive offsets and the result is stored back packed.
#include "lrn.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"
#include "simd/simd_math.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

class LRN_cpu : public LRN
{
public:
    LRN_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward_inplace(Mat& bottom_top_blob, const Option& opt) const override
    {
        Mat& m = bottom_top_blob;
        if (m.dims != 3 || bias <= 0.f || !dispatchable_pack(m.elempack))
        {
            note_cpu_layer_on_reference();
            if (m.elempack == 1 && m.elembits() == 32)
                return LRN::forward_inplace(m, opt);
            Mat b;
            int ret = to_fp32_pack1(m, b, opt);
            if (ret == 0)
                ret = LRN::forward_inplace(b, opt);
            if (ret != 0)
                return ret;
            // hand back the layout the layer was given
            return restore_layout(b, m, opt);
        }
        const int ep = m.elempack;
        if (m.elembits() == 16)
        {
            KITE_CPU_DISPATCH_PACK(P, ep, return run<P, unsigned short>(m, opt))
        }
        KITE_CPU_DISPATCH_PACK(P, ep, return run<P, float>(m, opt))
        return 0;
    }

private:
    static int restore_layout(const Mat& fp32_pack1, Mat& m, const Option& opt)
    {
        Mat p = fp32_pack1;
        if (m.elempack != 1)
        {
            Mat t;
            convert_packing(p, t, m.elempack, opt);
            if (t.empty())
                return -100;
            p = t;
        }
        if (m.elembits() == 16)
        {
            Mat h;
            cast_float32_to_float16(p, h, opt);
            if (h.empty())
                return -100;
            p = h;
        }
        m = p;
        return 0;
    }

    template<class S>
    static S* chan(const Mat& m, int q)
    {
        return (S*)((unsigned char*)m.data + m.cstep * q * m.elemsize);
    }

    // x * (bias + k * ss)^-beta
    template<class V>
    typename V::T scale(typename V::T x, typename V::T ss, float k) const
    {
        typename V::T base = V::fmadd(ss, V::set1(k), V::set1(bias));
        return V::mul(x, simd::exp_ps<V>(V::mul(simd::log_ps<V>(base), V::set1(-beta))));
    }

    template<int P, class S>
    int run(Mat& m, const Option& opt) const
    {
        if (region_type == WITHIN_CHANNEL)
            return within<P, S>(m, opt);
        if (P == 1)
            return across_planes<S>(m, opt);
        return across_packed<P, S>(m, opt);
    }

    template<class S>
    int across_planes(Mat& m, const Option& opt) const
    {
        typedef simd::VF<KITE_SIMD_MAX_N> V;
        typedef simd::VF<1> V1;
        const int channels = m.c;
        const int size = m.w * m.h;
        const int half = local_size / 2;
        const float k = alpha / local_size;
        Mat square(size, channels, 4u, opt.workspace_allocator);
        if (square.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const S* ptr = (const S*)m.channel(q).data;
            float* sptr = square.row(q);
            int i = 0;
            for (; i + V::N <= size; i += V::N)
            {
                typename V::T x = V::load(ptr + i);
                V::store(sptr + i, V::mul(x, x));
            }
            for (; i < size; i++)
            {
                float x = V1::load(ptr + i);
                sptr[i] = x * x;
            }
        }
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            S* ptr = (S*)m.channel(q).data;
            const int p0 = std::max(q - half, 0), p1 = std::min(q + half, channels - 1);
            int i = 0;
            for (; i + V::N <= size; i += V::N)
            {
                typename V::T ss = V::zero();
                for (int p = p0; p <= p1; p++)
                    ss = V::add(ss, V::load(square.row(p) + i));
                V::store(ptr + i, scale<V>(V::load(ptr + i), ss, k));
            }
            for (; i < size; i++)
            {
                float ss = 0.f;
                for (int p = p0; p <= p1; p++)
                    ss += square.row(p)[i];
                V1::store(ptr + i, scale<V1>(V1::load(ptr + i), ss, k));
            }
        }
        return 0;
    }

    template<int P, class S>
    int across_packed(Mat& m, const Option& opt) const
    {
        typedef simd::VF<P> V;
        const int groups = m.c, channels = m.c * P;
        const int size = m.w * m.h;
        const int half = local_size / 2;
        const float k = alpha / local_size;
        const int padded = channels + 2 * half;
        // one block of pixels per thread, each with its own padded row
        const int nblocks = std::max(1, std::min(opt.num_threads, size));
        const int block = (size + nblocks - 1) / nblocks;
        Mat rows(padded, nblocks, 4u, opt.workspace_allocator);
        if (rows.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int b = 0; b < nblocks; b++)
        {
            float* sq = rows.row(b);
            std::fill(sq, sq + half, 0.f);
            std::fill(sq + half + channels, sq + padded, 0.f);
            const int i1 = std::min(size, (b + 1) * block);
            for (int i = b * block; i < i1; i++)
            {
                for (int g = 0; g < groups; g++)
                {
                    typename V::T x = V::load(chan<S>(m, g) + (size_t)i * P);
                    V::store(sq + half + g * P, V::mul(x, x));
                }
                for (int g = 0; g < groups; g++)
                {
                    // channel c's window is sq[c .. c + 2 * half] of the padded row
                    const float* w0 = sq + g * P;
                    typename V::T ss = V::zero();
                    for (int t = 0; t < 2 * half + 1; t++)
                        ss = V::add(ss, V::load(w0 + t));
                    S* ptr = chan<S>(m, g) + (size_t)i * P;
                    V::store(ptr, scale<V>(V::load(ptr), ss, k));
                }
            }
        }
        return 0;
    }

    template<int P, class S>
    int within(Mat& m, const Option& opt) const
    {
        typedef simd::VF<P> V;
        const int w = m.w, h = m.h, channels = m.c;
        const int pad = local_size / 2;
        const float k = alpha / (local_size * local_size);
        Mat square(w * P, h, channels, 4u, opt.workspace_allocator);
        if (square.empty())
            return -100;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            S* ptr = (S*)m.channel(q).data;
            float* sptr = square.channel(q);
            for (int i = 0; i < w * h; i++)
            {
                typename V::T x = V::load(ptr + (size_t)i * P);
                V::store(sptr + (size_t)i * P, V::mul(x, x));
            }
            for (int y = 0; y < h; y++)
            {
                const int y0 = std::max(y - pad, 0), y1 = std::min(y - pad + local_size, h);
                for (int x = 0; x < w; x++)
                {
                    const int x0 = std::max(x - pad, 0), x1 = std::min(x - pad + local_size, w);
                    typename V::T ss = V::zero();
                    for (int yy = y0; yy < y1; yy++)
                        for (int xx = x0; xx < x1; xx++)
                            ss = V::add(ss, V::load(sptr + ((size_t)yy * w + xx) * P));
                    S* o = ptr + ((size_t)y * w + x) * P;
                    V::store(o, scale<V>(V::load(o), ss, k));
                }
            }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(LRN_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
