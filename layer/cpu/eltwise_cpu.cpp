// Eltwise, compiled once per CPU ISA level (x86 and ARM): prod / sum / weighted sum /
// max over inputs of the same shape and layout, any elempack, fp32 or fp16
// storage (accumulated in fp32 per input pass, as the reference orders it).
#include "eltwise.h"
#include "cpu/binary_cpu.h"
#include "cpu/packing_cpu.h"
#include "gpu/cpu_fallback.h"

#include <cstring>

namespace kite {
namespace KITE_ISA_NS {

class Eltwise_cpu : public Eltwise
{
public:
    Eltwise_cpu()
    {
        support_packing = true;
        support_fp16_storage = KITE_SIMD_F16C;
    }

    int forward(const std::vector<Mat>& bottom_blobs, std::vector<Mat>& top_blobs, const Option& opt) const override
    {
        bool same = !bottom_blobs.empty() && !bottom_blobs[0].empty() && top_blobs.size() == 1;
        for (const Mat& m : bottom_blobs)
            same = same && same_layout(m, bottom_blobs[0]);
        const bool weighted = op_type == Operation_SUM && coeffs.w > 0;
        if (!same || (weighted && coeffs.w < (int)bottom_blobs.size()))
        {
            note_cpu_layer_on_reference();
            std::vector<Mat> unpacked;
            int ret = to_fp32_pack1(bottom_blobs, unpacked, opt);
            return ret != 0 ? ret : Eltwise::forward(unpacked, top_blobs, opt);
        }
        if (bottom_blobs[0].elembits() == 16)
            return run<unsigned short>(bottom_blobs, top_blobs[0], opt);
        return run<float>(bottom_blobs, top_blobs[0], opt);
    }

private:
    template<class S>
    int run(const std::vector<Mat>& bottom_blobs, Mat& top, const Option& opt) const
    {
        const Mat& first = bottom_blobs[0];
        top.create_like(first, opt.blob_allocator);
        if (top.empty())
            return -100;
        const int channels = first.dims >= 3 ? first.c : 1;
        const size_t n = channel_scalars(first);
        const int op = op_type == Operation_PROD ? BK_MUL : op_type == Operation_SUM ? BK_ADD : BK_MAX;
        const bool weighted = op_type == Operation_SUM && coeffs.w > 0;
        const float* cf = weighted ? (const float*)coeffs.data : nullptr;
        #pragma omp parallel for num_threads(opt.num_threads)
        for (int q = 0; q < channels; q++)
        {
            S* out = (S*)top.data + channel_stride(top) * q;
            auto in = [&](int b) { return (const S*)bottom_blobs[b].data + channel_stride(bottom_blobs[b]) * q; };
            if (!weighted)
            {
                if (bottom_blobs.size() == 1)
                    memcpy(out, in(0), n * sizeof(S));
                else
                    binary_run(op, in(0), in(1), out, n);
                for (size_t b = 2; b < bottom_blobs.size(); b++)
                    binary_run(op, (const S*)out, in((int)b), out, n);
                continue;
            }
            // weighted sum: out = in0 * c0, then out += in_b * c_b
            for (size_t b = 0; b < bottom_blobs.size(); b++)
            {
                const S* p = in((int)b);
                const float c = cf[b];
                accumulate_pass(p, out, n, [c, b](auto tag, auto x, auto o) {
                    typedef decltype(tag) V;
                    return b == 0 ? V::mul(x, V::set1(c)) : V::fmadd(x, V::set1(c), o);
                });
            }
        }
        return 0;
    }

    // out[i] = f(V, p[i], out[i]) at every width
    template<class S, class F>
    static void accumulate_pass(const S* p, S* out, size_t n, const F& f)
    {
        size_t i = 0;
#if KITE_SIMD_MAX_N >= 16
        for (; i + 16 <= n; i += 16)
            simd::VF<16>::store(out + i, f(simd::VF<16>(), simd::VF<16>::load(p + i), simd::VF<16>::load((const S*)out + i)));
#endif
#if KITE_SIMD_MAX_N >= 8
        for (; i + 8 <= n; i += 8)
            simd::VF<8>::store(out + i, f(simd::VF<8>(), simd::VF<8>::load(p + i), simd::VF<8>::load((const S*)out + i)));
#endif
        for (; i + 4 <= n; i += 4)
            simd::VF<4>::store(out + i, f(simd::VF<4>(), simd::VF<4>::load(p + i), simd::VF<4>::load((const S*)out + i)));
        for (; i < n; i++)
            simd::VF<1>::store(out + i, f(simd::VF<1>(), simd::VF<1>::load(p + i), simd::VF<1>::load((const S*)out + i)));
    }
};

DEFINE_LAYER_CREATOR(Eltwise_cpu)

} // namespace KITE_ISA_NS
} // namespace kite
