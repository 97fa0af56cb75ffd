// Pooling, compiled once per CPU ISA level (x86 and ARM): max/avg (pads excluded or
// counted) and global pooling on elempack 1/4/8/16 blobs, fp32 or fp16
// storage, one vector per packed element. Adaptive pooling and 2-D inputs
// run the reference on an unpacked copy.
#include "pooling.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"

#include <algorithm>
#include <cfloat>

namespace kite {
namespace KITE_ISA_NS {

class Pooling_cpu : public Pooling
{
public:
    Pooling_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (bottom_blob.dims != 3 || p.adaptive_pooling || bottom_blob.w * bottom_blob.h == 0 || !dispatchable_pack(bottom_blob.elempack))
        {
            note_cpu_layer_on_reference();
            Mat b;
            int ret = to_fp32_pack1(bottom_blob, b, opt);
            return ret != 0 ? ret : Pooling::forward(b, top_blob, opt);
        }
        const int ep = bottom_blob.elempack;
        if (bottom_blob.elembits() == 16)
        {
            KITE_CPU_DISPATCH_PACK(P, ep, return run<P, unsigned short>(bottom_blob, top_blob, opt))
        }
        KITE_CPU_DISPATCH_PACK(P, ep, return run<P, float>(bottom_blob, top_blob, opt))
        return 0;
    }

private:
    // n outputs of K x K max windows, window origins sx elements apart from
    // src (rows w elements apart), all inside the data
    template<int P, class S, int K>
    static void max_window_row(const S* src, int w, int sx, int n, S* dst)
    {
        typedef simd::VF<P> V;
        for (int i = 0; i < n; i++)
        {
            const S* s = src + (size_t)i * sx * P;
            typename V::T acc = V::load(s);
#pragma GCC unroll 3
            for (int ky = 0; ky < K; ky++)
#pragma GCC unroll 3
                for (int kx = 0; kx < K; kx++)
                    acc = V::max(acc, V::load(s + ((size_t)ky * w + kx) * P));
            V::store(dst + (size_t)i * P, acc);
        }
    }

    template<int P, class S>
    int run(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const
    {
        typedef simd::VF<P> V;
        typedef typename V::T T;
        const int w = bottom_blob.w, h = bottom_blob.h, channels = bottom_blob.c;
        const bool is_max = p.pooling_type == 0;
        if (p.global_pooling)
        {
            top_blob.create(channels, bottom_blob.elemsize, P, opt.blob_allocator);
            if (top_blob.empty())
                return -100;
            const int size = w * h;
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int q = 0; q < channels; q++)
            {
                const S* ptr = (const S*)bottom_blob.channel(q).data;
                T acc = is_max ? V::load(ptr) : V::zero();
                for (int i = 0; i < size; i++)
                    acc = is_max ? V::max(acc, V::load(ptr + i * P)) : V::add(acc, V::load(ptr + i * P));
                if (!is_max)
                    acc = V::div(acc, V::set1((float)size));
                V::store((S*)top_blob.data + q * P, acc);
            }
            return 0;
        }

        const PoolingAxisPlan ax = pooling_plan_axis(p, 0, w);
        const PoolingAxisPlan ay = pooling_plan_axis(p, 1, h);
        if (ax.out <= 0 || ay.out <= 0)
        {
            KITE_LOGE("Pooling '%s': input %d x %d with padding is smaller than the kernel %d x %d", name.c_str(), w, h,
                      p.kernel[0], p.kernel[1]);
            return -1;
        }
        top_blob.create(ax.out, ay.out, channels, bottom_blob.elemsize, P, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const int kw = p.kernel[0], kh = p.kernel[1], sw = p.stride[0], sh = p.stride[1];
        const bool exclude_pad = !is_max && !p.avgpool_count_include_pad;
        // max pooling with a 2x2 or 3x3 window: the windows inside the data
        // (outputs ox_in0..ox_in1-1 of rows whose window rows are inside) take
        // an unrolled loop
        const int kfast = is_max && kw == kh && (kw == 2 || kw == 3) ? kw : 0;
        const int ox_in0 = std::min(ax.out, (ax.lo + sw - 1) / sw);
        const int ox_in1 = std::max(ox_in0, std::min(ax.out, w + ax.lo >= kw ? (w + ax.lo - kw) / sw + 1 : 0));
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            const S* ptr = (const S*)bottom_blob.channel(q).data;
            S* outptr = (S*)top_blob.channel(q).data;
            for (int oy = 0; oy < ay.out; oy++)
            {
                // the window rows inside the data, and (avg) those counted
                // (ncnn's avg without pads also leaves out data under the parameter pads)
                const int py0 = oy * sh;
                int y0 = std::max(py0, ay.lo), y1 = std::min(py0 + kh, ay.lo + h);
                if (exclude_pad)
                    y0 = std::max(y0, ay.ex_lo), y1 = std::min(y1, ay.ex_hi);
                y0 -= ay.lo, y1 -= ay.lo;
                const int cy = std::min(py0 + kh, ay.ex_hi) - std::max(py0, ay.ex_lo);
                const bool rows_in = py0 >= ay.lo && py0 + kh <= ay.lo + h;
                for (int ox = 0; ox < ax.out; ox++)
                {
                    if (kfast && rows_in && ox == ox_in0 && ox_in1 > ox_in0)
                    {
                        const S* src = ptr + ((size_t)(py0 - ay.lo) * w + (ox_in0 * sw - ax.lo)) * P;
                        S* dst = outptr + ((size_t)oy * ax.out + ox_in0) * P;
                        if (kfast == 3)
                            max_window_row<P, S, 3>(src, w, sw, ox_in1 - ox_in0, dst);
                        else
                            max_window_row<P, S, 2>(src, w, sw, ox_in1 - ox_in0, dst);
                        ox = ox_in1 - 1;
                        continue;
                    }
                    const int px0 = ox * sw;
                    int x0 = std::max(px0, ax.lo), x1 = std::min(px0 + kw, ax.lo + w);
                    if (exclude_pad)
                        x0 = std::max(x0, ax.ex_lo), x1 = std::min(x1, ax.ex_hi);
                    x0 -= ax.lo, x1 -= ax.lo;
                    T acc = is_max ? V::set1(-FLT_MAX) : V::zero();
                    for (int y = y0; y < y1; y++)
                    {
                        const S* row = ptr + (size_t)y * w * P;
                        if (is_max)
                            for (int x = x0; x < x1; x++)
                                acc = V::max(acc, V::load(row + x * P));
                        else
                            for (int x = x0; x < x1; x++)
                                acc = V::add(acc, V::load(row + x * P));
                    }
                    if (!is_max)
                    {
                        int area = kw * kh;
                        if (exclude_pad)
                            area = cy * (std::min(px0 + kw, ax.ex_hi) - std::max(px0, ax.ex_lo));
                        acc = V::div(acc, V::set1((float)area));
                    }
                    V::store(outptr + ((size_t)oy * ax.out + ox) * P, acc);
                }
            }
        }
        return 0;
    }
};

DEFINE_LAYER_CREATOR(Pooling_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
