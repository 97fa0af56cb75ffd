#ifndef KITE_LAYER_COMMON_CONV_INT8_PLANES_H
#define KITE_LAYER_COMMON_CONV_INT8_PLANES_H

// The 2-D, group-1 int8 convolution of conv_forward_int8 (conv_kernel.h),
// computed in another order: the int32 sums of four output channels are
// accumulated over whole output planes, one (input channel, ky, kx) weight at
// a time times a shifted input row, so the inner loop runs along contiguous
// memory and vectorises. The sums are the same integers (int32 addition is
// exact and the terms are the same), and the epilogue below is
// conv_forward_int8's, so the outputs are identical to it -- only faster
// (the reference walks every kernel tap per output element).

#include "common/activation.h"
#include "common/conv_kernel.h"
#include "common/int8.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kite {

// acc_i[at + t] += w_i * src[t] for t < n, four accumulator planes. |w * v|
// <= 127 * 128 fits 16 bits: exact 16-bit products, widened when added.
static inline void accumulate_run(const signed char* src, size_t n, size_t at, int* a0, int* a1, int* a2, int* a3,
                                  int w0, int w1, int w2, int w3)
{
    int* d0 = a0 + at;
    int* d1 = a1 + at;
    int* d2 = a2 + at;
    int* d3 = a3 + at;
    const short s0 = (short)w0, s1 = (short)w1, s2 = (short)w2, s3 = (short)w3;
    for (size_t t = 0; t < n; t++)
    {
        const short v = src[t];
        d0[t] += (short)(s0 * v);
        d1[t] += (short)(s1 * v);
        d2[t] += (short)(s2 * v);
        d3[t] += (short)(s3 * v);
    }
}

// Applicable when both views are 2-D planes (d == 1) and the convolution has
// one group; returns false (nothing written) otherwise.
static inline bool conv_forward_int8_planes(const ConvView& in, const ConvView& out, const signed char* weight, const float* bias,
                                            const float* scale_in, const float* scale_out, const ConvGeometry& g,
                                            signed char pad_value, const Activation& act, int num_threads, int numerics)
{
    if (in.d != 1 || out.d != 1 || g.kernel_d != 1 || in.c <= 0 || out.c <= 0 || out.w <= 0 || out.h <= 0)
        return false;
    const int inch = in.c;
    const int outch = out.c;
    const int kw = g.kernel_w;
    const int kh = g.kernel_h;
    const int maxk = kw * kh;
    const int outw = out.w;
    const int outh = out.h;
    const size_t plane = (size_t)outw * outh;

    // per kx, the output columns [ox_lo, ox_hi) whose input column is inside
    std::vector<int> ox_lo(kw), ox_hi(kw);
    for (int kx = 0; kx < kw; kx++)
    {
        const long off = (long)kx * g.dilation_w - g.pad_left; // ix = ox * stride_w + off
        long lo = off >= 0 ? 0 : (-off + g.stride_w - 1) / g.stride_w;
        long hi = off > in.w - 1 ? 0 : (in.w - 1 - off) / g.stride_w + 1;
        lo = std::min<long>(lo, outw);
        hi = std::max<long>(std::min<long>(hi, outw), lo);
        ox_lo[kx] = (int)lo;
        ox_hi[kx] = (int)hi;
    }

    const int nblocks = (outch + 3) / 4;
    #pragma omp parallel for num_threads(num_threads) schedule(dynamic)
    for (int blk = 0; blk < nblocks; blk++)
    {
        const int oc0 = blk * 4;
        const int nb = std::min(4, outch - oc0);
        std::vector<int> acc(plane * 4, 0);
        int* a0 = acc.data();
        int* a1 = a0 + plane;
        int* a2 = a1 + plane;
        int* a3 = a2 + plane;

        for (int ic = 0; ic < inch; ic++)
        {
            const signed char* ip = (const signed char*)in.data + in.cstep * ic;
            for (int ky = 0; ky < kh; ky++)
            {
                for (int kx = 0; kx < kw; kx++)
                {
                    int w[4] = {0, 0, 0, 0};
                    for (int i = 0; i < nb; i++)
                        w[i] = weight[((size_t)(oc0 + i) * inch + ic) * maxk + ky * kw + kx];
                    const int w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
                    const int p0 = w0 * pad_value, p1 = w1 * pad_value, p2 = w2 * pad_value, p3 = w3 * pad_value;
                    const int lo = ox_lo[kx];
                    const int hi = ox_hi[kx];
                    if (pad_value != 0)
                    {
                        // pad_value times the weight where the tap falls outside
                        for (int oy = 0; oy < outh; oy++)
                        {
                            const int iy = oy * g.stride_h + ky * g.dilation_h - g.pad_top;
                            const bool row_inside = iy >= 0 && iy < in.h;
                            const size_t r = (size_t)oy * outw;
                            for (int ox = 0; ox < outw; ox++)
                            {
                                if (row_inside && ox >= lo && ox < hi)
                                    continue;
                                a0[r + ox] += p0;
                                a1[r + ox] += p1;
                                a2[r + ox] += p2;
                                a3[r + ox] += p3;
                            }
                        }
                    }
                    if (lo >= hi)
                        continue;
                    // output rows whose input row is inside: [oy_lo, oy_hi)
                    const int iy0 = ky * g.dilation_h - g.pad_top; // iy = oy * stride_h + iy0
                    const int oy_lo = std::min(outh, iy0 >= 0 ? 0 : (-iy0 + g.stride_h - 1) / g.stride_h);
                    const int oy_hi = std::max(oy_lo, std::min(outh, iy0 > in.h - 1 ? 0 : (in.h - 1 - iy0) / g.stride_h + 1));
                    if (g.stride_w == 1 && g.stride_h == 1 && lo == 0 && hi == outw && outw == in.w)
                    {
                        // whole rows on both sides, equally long: one run over
                        // the rows [oy_lo, oy_hi) (the input column offset is 0)
                        accumulate_run(ip + (size_t)(oy_lo + iy0) * in.w, (size_t)(oy_hi - oy_lo) * outw, (size_t)oy_lo * outw,
                                       a0, a1, a2, a3, w0, w1, w2, w3);
                        continue;
                    }
                    for (int oy = oy_lo; oy < oy_hi; oy++)
                    {
                        const size_t r = (size_t)oy * outw;
                        // input index of output column ox: base + ox * stride_w
                        const long base = (long)(oy * g.stride_h + iy0) * in.w + (long)kx * g.dilation_w - g.pad_left;
                        if (g.stride_w == 1)
                        {
                            accumulate_run(ip + base + lo, (size_t)(hi - lo), r + lo, a0, a1, a2, a3, w0, w1, w2, w3);
                        }
                        else
                        {
                            for (int ox = lo; ox < hi; ox++)
                            {
                                const int v = ip[base + (long)ox * g.stride_w];
                                a0[r + ox] += w0 * v;
                                a1[r + ox] += w1 * v;
                                a2[r + ox] += w2 * v;
                                a3[r + ox] += w3 * v;
                            }
                        }
                    }
                }
            }
        }

        // conv_forward_int8's epilogue, element for element
        for (int i = 0; i < nb; i++)
        {
            const int oc = oc0 + i;
            const int* sums = a0 + plane * i;
            for (size_t n = 0; n < plane; n++)
            {
                conv_int8_finish(sums[n], oc, bias, scale_in, scale_out, act, numerics, out.data, out.cstep * oc + n);
            }
        }
    }
    return true;
}

} // namespace kite

#endif // KITE_LAYER_COMMON_CONV_INT8_PLANES_H
