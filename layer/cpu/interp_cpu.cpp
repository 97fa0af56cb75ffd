// Interp, compiled once per CPU ISA level (x86 and ARM): nearest, bilinear and bicubic
// resizes of 3-D blobs and the 1-D -> constant planes case on elempack
// 1/4/8/16, fp32 or fp16 storage, one vector per packed element (the packed
// channels resize together). The taps are the reference's (interp_make_taps)
// and each output blends them in the same order: a row resized along w per
// vertical tap, then the rows weighted along h. Nearest copies elements.
// 2-D inputs run the reference on an unpacked fp32 copy.
#include "interp.h"
#include "cpu/packing_cpu.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

class Interp_cpu : public Interp
{
public:
    Interp_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

protected:
    int resize(const Mat& bottom_blob, Mat& top_blob, int outw, int outh, float hs, float ws, const Option& opt) const override
    {
        const int ep = bottom_blob.elempack;
        if (bottom_blob.dims == 2 || outw <= 0 || outh <= 0 || !dispatchable_pack(ep))
        {
            Mat b;
            int ret = to_fp32_pack1(bottom_blob, b, opt);
            return ret != 0 ? ret : Interp::resize(b, top_blob, outw, outh, hs, ws, opt);
        }
        if (bottom_blob.elembits() == 16)
        {
            KITE_CPU_DISPATCH_PACK(P, ep, return run<P, unsigned short>(bottom_blob, top_blob, outw, outh, hs, ws, opt))
        }
        KITE_CPU_DISPATCH_PACK(P, ep, return run<P, float>(bottom_blob, top_blob, outw, outh, hs, ws, opt))
        return 0;
    }

private:
    template<int P, class S>
    int run(const Mat& bottom_blob, Mat& top_blob, int outw, int outh, float hs, float ws, const Option& opt) const
    {
        typedef simd::VF<P> V;
        typedef typename V::T T;
        const size_t es = bottom_blob.elemsize;
        if (bottom_blob.dims == 1)
        {
            // each (packed) value becomes a constant plane
            const int channels = bottom_blob.w;
            top_blob.create(outw, outh, channels, es, P, opt.blob_allocator);
            if (top_blob.empty())
                return -100;
            #pragma omp parallel for num_threads(opt.num_threads)
            for (int q = 0; q < channels; q++)
            {
                const T v = V::load((const S*)bottom_blob.data + (size_t)q * P);
                S* outptr = (S*)top_blob.channel(q).data;
                for (int i = 0; i < outw * outh; i++)
                    V::store(outptr + (size_t)i * P, v);
            }
            return 0;
        }

        const int w = bottom_blob.w, h = bottom_blob.h, channels = bottom_blob.c;
        InterpTaps tx, ty;
        interp_make_taps(resize_type, w, outw, ws, align_corner != 0, tx);
        interp_make_taps(resize_type, h, outh, hs, align_corner != 0, ty);
        // taps clamped to the border once
        std::vector<int> sx(tx.ofs.size() * tx.ntaps), sy(ty.ofs.size() * ty.ntaps);
        for (int x = 0; x < outw; x++)
            for (int k = 0; k < tx.ntaps; k++)
                sx[x * tx.ntaps + k] = std::min(std::max(tx.ofs[x] + k, 0), w - 1);
        for (int y = 0; y < outh; y++)
            for (int k = 0; k < ty.ntaps; k++)
                sy[y * ty.ntaps + k] = std::min(std::max(ty.ofs[y] + k, 0), h - 1);

        top_blob.create(outw, outh, channels, es, P, opt.blob_allocator);
        if (top_blob.empty())
            return -100;
        const bool nearest = resize_type == RESIZE_NEAREST;
        // rows resized along w, ntaps of them per thread
        const int nt = std::max(1, std::min(opt.num_threads, channels));
        Mat rows(outw * P * ty.ntaps, nt, 4u, opt.workspace_allocator);
        if (rows.empty())
            return -100;
        const int per = (channels + nt - 1) / nt;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int t = 0; t < nt; t++)
        {
            float* buf = rows.row(t);
            for (int q = t * per; q < std::min(channels, (t + 1) * per); q++)
            {
                const S* src = (const S*)bottom_blob.channel(q).data;
                S* outptr = (S*)top_blob.channel(q).data;
                // the source row each slot of buf holds resized: an upscale
                // by s reuses them for s output rows (lraspp's final 28 ->
                // 224 bilinear resize of 21 planar channels did the
                // horizontal pass 8x over: 1.7x ncnn's CPU time for the model)
                // slots move with their rows (tap 1's row is the next
                // output row's tap 0 at a row boundary)
                int held[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
                float* slot[8];
                for (int k = 0; k < ty.ntaps && k < 8; k++)
                    slot[k] = buf + (size_t)k * outw * P;
                for (int y = 0; y < outh; y++)
                {
                    S* orow = outptr + (size_t)y * outw * P;
                    if (nearest)
                    {
                        const S* srow = src + (size_t)sy[y] * w * P;
                        for (int x = 0; x < outw; x++)
                            V::store(orow + (size_t)x * P, V::load(srow + (size_t)sx[x] * P));
                        continue;
                    }
                    for (int k = 0; k < ty.ntaps; k++)
                    {
                        const int row = sy[y * ty.ntaps + k];
                        if (held[k] == row)
                            continue;
                        int j = k + 1;
                        while (j < ty.ntaps && held[j] != row)
                            j++;
                        if (j < ty.ntaps)
                        {
                            std::swap(held[k], held[j]);
                            std::swap(slot[k], slot[j]);
                            continue;
                        }
                        held[k] = row;
                        const S* srow = src + (size_t)row * w * P;
                        float* r = slot[k];
                        if (tx.ntaps == 2)
                        {
                            // bilinear: the same two products in the same order, unrolled
                            for (int x = 0; x < outw; x++)
                            {
                                const float* a = &tx.alpha[x * 2];
                                const int* xs = &sx[x * 2];
                                T v = V::add(V::zero(), V::mul(V::load(srow + (size_t)xs[0] * P), V::set1(a[0])));
                                v = V::add(v, V::mul(V::load(srow + (size_t)xs[1] * P), V::set1(a[1])));
                                V::store(r + (size_t)x * P, v);
                            }
                            continue;
                        }
                        for (int x = 0; x < outw; x++)
                        {
                            const float* a = &tx.alpha[x * tx.ntaps];
                            const int* xs = &sx[x * tx.ntaps];
                            T v = V::zero();
                            for (int j = 0; j < tx.ntaps; j++)
                                v = V::add(v, V::mul(V::load(srow + (size_t)xs[j] * P), V::set1(a[j])));
                            V::store(r + (size_t)x * P, v);
                        }
                    }
                    // the rows weighted along h: the same sum for every
                    // scalar of the row, so in the widest vectors
                    const float* b = &ty.alpha[y * ty.ntaps];
                    const size_t n = (size_t)outw * P;
                    size_t i = 0;
#if KITE_SIMD_MAX_N >= 16
                    i = blend_rows<16, S>(slot, n, b, ty.ntaps, orow, i);
#endif
#if KITE_SIMD_MAX_N >= 8
                    i = blend_rows<8, S>(slot, n, b, ty.ntaps, orow, i);
#endif
                    i = blend_rows<4, S>(slot, n, b, ty.ntaps, orow, i);
                    blend_rows<1, S>(slot, n, b, ty.ntaps, orow, i);
                }
            }
        }
        return 0;
    }

    // out[i] = sum_k b[k] * rows[k][i] (ntaps <= 8 rows) for i from i0 in steps of N while a
    // whole vector fits; returns where it stopped
    template<int N, class S>
    static size_t blend_rows(float* const* rows, size_t n, const float* b, int ntaps, S* out, size_t i0)
    {
        typedef simd::VF<N> W;
        size_t i = i0;
        for (; i + N <= n; i += N)
        {
            typename W::T v = W::zero();
            for (int k = 0; k < ntaps; k++)
                v = W::add(v, W::mul(W::load(rows[k] + i), W::set1(b[k])));
            W::store(out + i, v);
        }
        return i;
    }
};

DEFINE_LAYER_CREATOR(Interp_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
