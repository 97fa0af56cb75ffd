// Depth-wise convolution on unpacked (elempack 1) fp32 planes, vectorised
// along the output row: shufflenet_v2's 58-channel branches cannot pack, so
// one channel's taps are broadcast and multiplied into runs of 16/8/4 outputs
// (simd::for_widths). Each channel is padded into a per-thread buffer and, when
// strided, split into its column phases (column x of the padded row is phase
// x % stride_w at x / stride_w; stride 2 by vector deinterleaves), so every tap
// reads a contiguous run and no padded copy of the whole blob is made. Same summation order as the packed kernel
// (bias, then taps in row-major order), activation in registers.
//
// Included by convolutiondepthwise_cpu.cpp; compiled once per ISA.
#ifndef KITE_CPU_CONV_DW_ROWS_H
#define KITE_CPU_CONV_DW_ROWS_H

#include "cpu/conv_vec_cpu.h"
#include "mat.h"

#include <string.h>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

struct DwGeometry
{
    int kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h;
};

// e[i] = s[2i], o[i] = s[2i+1] for i < n/2 (e gets one more when n is odd)
static inline void deinterleave2(const float* s, int n, float* e, float* o)
{
    int i = 0;
#if defined(__AVX512F__)
    const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    for (; i + 32 <= n; i += 32)
    {
        const __m512 a = _mm512_loadu_ps(s + i), b = _mm512_loadu_ps(s + i + 16);
        _mm512_storeu_ps(e + i / 2, _mm512_permutex2var_ps(a, ie, b));
        _mm512_storeu_ps(o + i / 2, _mm512_permutex2var_ps(a, io, b));
    }
#endif
#if defined(__SSE2__)
    for (; i + 8 <= n; i += 8)
    {
        const __m128 a = _mm_loadu_ps(s + i), b = _mm_loadu_ps(s + i + 4);
        _mm_storeu_ps(e + i / 2, _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm_storeu_ps(o + i / 2, _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
    }
#endif
    for (; i + 1 < n; i += 2)
    {
        e[i / 2] = s[i];
        o[i / 2] = s[i + 1];
    }
    if (i < n)
        e[i / 2] = s[i];
}

// One channel's padded plane (pads: left, right, top, bottom), split into its
// stride_w column phases when sw > 1: padded column x lands in phase x % sw
// at x / sw. Each phase row is pw floats; phase p starts at p * pw * PH.
static inline void dw_rows_fill_plane(const float* src, int w, int h, const int* pads, float pad_value, int sw, int pw,
                                      int PH, float* ph)
{
    const size_t phase_size = (size_t)pw * PH;
    for (int y = 0; y < PH; y++)
    {
        const int iy = y - pads[2];
        for (int p = 0; p < sw; p++)
        {
            float* d = ph + p * phase_size + (size_t)y * pw;
            for (int i = 0; i < pw; i++)
                d[i] = pad_value;
        }
        if (iy < 0 || iy >= h)
            continue;
        const float* s = src + (size_t)iy * w;
        const int pl = pads[0];
        if (sw == 1)
        {
            memcpy(ph + (size_t)y * pw + pl, s, (size_t)w * sizeof(float));
        }
        else if (sw == 2)
        {
            // input column j is padded column j + pl: even j -> phase pl & 1 at
            // (j + pl) / 2, odd j -> the other phase at (j + pl) / 2
            float* e = ph + (size_t)(pl & 1) * phase_size + (size_t)y * pw + (pl >> 1);
            float* o = ph + (size_t)((pl & 1) ^ 1) * phase_size + (size_t)y * pw + ((pl + 1) >> 1);
            deinterleave2(s, w, e, o);
        }
        else
        {
            for (int j = 0; j < w; j++)
            {
                const int x = j + pl;
                ph[(size_t)(x % sw) * phase_size + (size_t)y * pw + x / sw] = s[j];
            }
        }
    }
}

// in: unpadded, elempack 1, read as padded by pads (left, right, top, bottom)
// with pad_value; out: elempack 1; weight [c][kh*kw]; bias [c] or null. Each
// channel's padded (phase-split) plane is built in a per-thread buffer that
// stays in cache; stride 1 without pads reads the input in place.
static inline void depthwise_rows(const Mat& in, Mat& out, const float* weight, const float* bias, const DwGeometry& g,
                                  const int* pads, float pad_value, const Activation& act, int num_threads)
{
    const int maxk = g.kernel_w * g.kernel_h;
    const int W = in.w + pads[0] + pads[1], H = in.h + pads[2] + pads[3], sw = g.stride_w;
    const bool in_place = sw == 1 && pads[0] == 0 && pads[1] == 0 && pads[2] == 0 && pads[3] == 0;
    const int pw = (W + sw - 1) / sw; // phase plane width
    const size_t phase_size = (size_t)pw * H;
    // per tap: phase plane, row offset in rows, column offset in the phase plane
    std::vector<int> tap_phase(maxk), tap_row(maxk), tap_col(maxk);
    for (int ky = 0, k = 0; ky < g.kernel_h; ky++)
        for (int kx = 0; kx < g.kernel_w; kx++, k++)
        {
            const int x = kx * g.dilation_w;
            tap_phase[k] = x % sw;
            tap_col[k] = x / sw;
            tap_row[k] = ky * g.dilation_h;
        }
    const int outw = out.w, outh = out.h;

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<float> phases(in_place ? 0 : (size_t)sw * phase_size);
        std::vector<const float*> rows(maxk);
        #pragma omp for
        for (int q = 0; q < out.c; q++)
        {
            const float* src = in.channel(q);
            if (!in_place)
            {
                dw_rows_fill_plane(src, in.w, in.h, pads, pad_value, sw, pw, H, phases.data());
                src = phases.data();
            }
            const float* wq = weight + (size_t)maxk * q;
            const float b = bias ? bias[q] : 0.f;
            float* dst = out.channel(q);
            for (int oy = 0; oy < outh; oy++)
            {
                for (int k = 0; k < maxk; k++)
                    rows[k] = src + tap_phase[k] * phase_size + (size_t)(oy * g.stride_h + tap_row[k]) * pw + tap_col[k];
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

#endif // KITE_CPU_CONV_DW_ROWS_H
