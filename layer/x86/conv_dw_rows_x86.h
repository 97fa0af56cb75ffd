// Depth-wise convolution on unpacked (elempack 1) fp32 planes, vectorised
// along the output row: shufflenet_v2's 58-channel branches cannot pack, so
// one channel's taps are broadcast and multiplied into runs of 16/8/4 outputs
// (simd::for_widths). A strided plane is first split into its column phases
// (column x of the padded row is phase x % stride_w at x / stride_w), so every
// tap reads a contiguous run. Same summation order as the packed kernel
// (bias, then taps in row-major order), activation in registers.
//
// Included by convolutiondepthwise_x86.cpp; compiled once per ISA.
#ifndef KITE_X86_CONV_DW_ROWS_H
#define KITE_X86_CONV_DW_ROWS_H

#include "conv_vec_x86.h"
#include "mat.h"

#include <vector>

namespace kite {
namespace KITE_ISA_NS {

struct DwGeometry
{
    int kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h;
};

// in: padded, elempack 1; out: elempack 1; weight [c][kh*kw]; bias [c] or null
static inline void depthwise_rows(const Mat& in, Mat& out, const float* weight, const float* bias, const DwGeometry& g,
                                  const Activation& act, int num_threads)
{
    const int maxk = g.kernel_w * g.kernel_h;
    const int W = in.w, H = in.h, sw = g.stride_w;
    const bool split = sw > 1;
    const int pw = (W + sw - 1) / sw; // phase plane width
    // per tap: phase plane (or 0), row offset in rows, column offset in the phase plane
    std::vector<int> tap_phase(maxk), tap_row(maxk), tap_col(maxk);
    for (int ky = 0, k = 0; ky < g.kernel_h; ky++)
        for (int kx = 0; kx < g.kernel_w; kx++, k++)
        {
            const int x = kx * g.dilation_w;
            tap_phase[k] = split ? x % sw : 0;
            tap_col[k] = split ? x / sw : x;
            tap_row[k] = ky * g.dilation_h;
        }
    const int outw = out.w, outh = out.h;

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<float> phases(split ? (size_t)sw * pw * H : 0);
        std::vector<const float*> rows(maxk);
        #pragma omp for
        for (int q = 0; q < out.c; q++)
        {
            const float* src = in.channel(q);
            size_t plane_stride = (size_t)W, phase_size = 0;
            if (split)
            {
                float* ph = phases.data();
                phase_size = (size_t)pw * H;
                plane_stride = (size_t)pw;
                for (int y = 0; y < H; y++)
                    for (int p = 0; p < sw; p++)
                    {
                        const float* s = src + (size_t)y * W + p;
                        float* d = ph + (size_t)p * phase_size + (size_t)y * pw;
                        const int n = (W - p + sw - 1) / sw;
                        for (int i = 0; i < n; i++)
                            d[i] = s[(size_t)i * sw];
                    }
                src = ph;
            }
            const float* wq = weight + (size_t)maxk * q;
            const float b = bias ? bias[q] : 0.f;
            float* dst = out.channel(q);
            for (int oy = 0; oy < outh; oy++)
            {
                for (int k = 0; k < maxk; k++)
                    rows[k] = src + tap_phase[k] * phase_size + (size_t)(oy * g.stride_h + tap_row[k]) * plane_stride
                              + tap_col[k];
                const float* const* r = rows.data();
                simd::for_widths(outw, [&](auto v, int x) {
                    typedef decltype(v) V;
                    typename V::T a = V::set1(b);
                    for (int k = 0; k < maxk; k++)
                        a = V::fmadd(V::load(r[k] + x), V::set1(wq[k]), a);
                    store_activated<V::N>(dst + x, a, act);
                });
                dst += outw;
            }
        }
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_X86_CONV_DW_ROWS_H
