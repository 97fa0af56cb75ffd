// Direct convolution of a planar (elempack 1) input of few channels into a
// packed output: the first layer of every detector and classifier (RGB, 3x3
// stride 2 into 8-32 channels; blazeface's 5x5). The im2col GEMM spends more
// on packing K = C * kh * kw values a pixel than on the K * M multiply-adds
// when M is 8-32; here each output element of P channels is an accumulator
// that takes K broadcast input values times a P-channel weight vector, read
// straight from the padded input (no copy). B pixels of one output row at a
// time share each weight load.
//
// Included by layer/cpu/*_cpu.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_CPU_CONV_DIRECT_PLANAR_H
#define KITE_CPU_CONV_DIRECT_PLANAR_H

#include "cpu/conv_vec_cpu.h"
#include "cpu/fast_buffer_cpu.h"
#include "mat.h"

#include <algorithm>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// inputs of at most this many channels (never packed: the input is always
// planar), K = C * kh * kw at most kDirectMaxK
static const int kDirectMaxC = 3;
static const int kDirectMaxK = 128;

struct ConvDirectWeights
{
    int M = 0, K = 0, P = 0;
    FastBuffer<float> w;    // [M / P][K][P]
    FastBuffer<float> bias; // M, zero without a bias
};

// weight [M][K] in the layer's order (K = c, ky, kx), bias or null; P divides
// M. false: out of memory
static inline bool conv_direct_pack_weights(const float* weight, const float* bias, int M, int K, int P,
                                            ConvDirectWeights& out)
{
    out.M = 0;
    if (!out.w.assign((size_t)M * K, 0.f) || !out.bias.assign((size_t)M, 0.f))
    {
        out.w.clear();
        return false;
    }
    for (int m = 0; m < M; m++)
    {
        float* dst = out.w.data() + (size_t)(m / P) * K * P + m % P;
        for (int k = 0; k < K; k++)
            dst[(size_t)k * P] = weight[(size_t)m * K + k];
        if (bias)
            out.bias[m] = bias[m];
    }
    out.M = M;
    out.K = K;
    out.P = P;
    return true;
}

// B output pixels (their inputs XS floats apart) of one P-channel group:
// acc[j] = bias + sum_t w[t] * base[tofs[t] + j * XS]
template<int P, int B, int XS>
static inline void conv_direct_block(const float* base, const int* tofs, int K, const float* wp,
                                     typename simd::VF<P>::T bias, typename simd::VF<P>::T* acc)
{
    typedef simd::VF<P> V;
    for (int j = 0; j < B; j++)
        acc[j] = bias;
    for (int t = 0; t < K; t++)
    {
        const float* p = base + tofs[t];
        const typename V::T w = V::load(wp + (size_t)t * P);
        for (int j = 0; j < B; j++)
            acc[j] = V::fmadd(V::set1(p[j * XS]), w, acc[j]);
    }
}

// one output row of one P-channel group; output pixels ostep floats apart
template<int P, int XS>
static inline void conv_direct_row(const float* row, const int* tofs, int K, const float* wp,
                                   typename simd::VF<P>::T bias, float* dst, int outw, int ostep, const Activation& act)
{
    // 8 accumulators hide the FMA latency; with the weight and the broadcast
    // that stays inside 16 registers
    const int B = 8;
    typename simd::VF<P>::T acc[B];
    int x = 0;
    for (; x + B <= outw; x += B)
    {
        conv_direct_block<P, B, XS>(row + (size_t)x * XS, tofs, K, wp, bias, acc);
        for (int j = 0; j < B; j++)
            store_activated<P>(dst + (size_t)(x + j) * ostep, acc[j], act);
    }
    for (; x + 2 <= outw; x += 2)
    {
        conv_direct_block<P, 2, XS>(row + (size_t)x * XS, tofs, K, wp, bias, acc);
        store_activated<P>(dst + (size_t)x * ostep, acc[0], act);
        store_activated<P>(dst + (size_t)(x + 1) * ostep, acc[1], act);
    }
    for (; x < outw; x++)
    {
        conv_direct_block<P, 1, XS>(row + (size_t)x * XS, tofs, K, wp, bias, acc);
        store_activated<P>(dst + (size_t)x * ostep, acc[0], act);
    }
}

// the row for a pixel step of xs floats (1, 2, 4, 8, 16 or 32); false for another
template<int P>
static inline bool conv_direct_row_xs(int xs, const float* row, const int* tofs, int K, const float* wp,
                                      typename simd::VF<P>::T bias, float* dst, int outw, int ostep, const Activation& act)
{
    switch (xs)
    {
    case 1:
        conv_direct_row<P, 1>(row, tofs, K, wp, bias, dst, outw, ostep, act);
        return true;
    case 2:
        conv_direct_row<P, 2>(row, tofs, K, wp, bias, dst, outw, ostep, act);
        return true;
    case 4:
        conv_direct_row<P, 4>(row, tofs, K, wp, bias, dst, outw, ostep, act);
        return true;
    case 8:
        conv_direct_row<P, 8>(row, tofs, K, wp, bias, dst, outw, ostep, act);
        return true;
    case 16:
        conv_direct_row<P, 16>(row, tofs, K, wp, bias, dst, outw, ostep, act);
        return true;
    case 32:
        conv_direct_row<P, 32>(row, tofs, K, wp, bias, dst, outw, ostep, act);
        return true;
    default:
        return false;
    }
}

// conv_direct_block for a pixel step of xs floats (those of conv_direct_row_xs); false for another
template<int P, int B>
static inline bool conv_direct_block_xs(int xs, const float* base, const int* tofs, int K, const float* wp,
                                        typename simd::VF<P>::T bias, typename simd::VF<P>::T* acc)
{
    switch (xs)
    {
    case 1: conv_direct_block<P, B, 1>(base, tofs, K, wp, bias, acc); return true;
    case 2: conv_direct_block<P, B, 2>(base, tofs, K, wp, bias, acc); return true;
    case 4: conv_direct_block<P, B, 4>(base, tofs, K, wp, bias, acc); return true;
    case 8: conv_direct_block<P, B, 8>(base, tofs, K, wp, bias, acc); return true;
    case 16: conv_direct_block<P, B, 16>(base, tofs, K, wp, bias, acc); return true;
    case 32: conv_direct_block<P, B, 32>(base, tofs, K, wp, bias, acc); return true;
    default: return false;
    }
}

// the pixel steps conv_direct_row_xs takes
static inline bool conv_direct_xs_ok(int xs)
{
    return xs == 1 || xs == 2 || xs == 4 || xs == 8 || xs == 16 || xs == 32;
}

// in: padded planar input (elempack 1, C channels); out: outw x outh x M of
// elempack P (created by the caller). Rows of every group split over the
// threads.
template<int P>
static inline void conv_direct_planar_forward(const Mat& in, Mat& out, const ConvDirectWeights& dw, int kernel_w,
                                              int kernel_h, int dilation_w, int dilation_h, int stride_w, int stride_h,
                                              const Activation& act, int num_threads)
{
    typedef simd::VF<P> V;
    const int K = dw.K, maxk = kernel_w * kernel_h;
    const int C = K / maxk;
    std::vector<int> tofs(K);
    for (int c = 0, t = 0; c < C; c++)
        for (int ky = 0; ky < kernel_h; ky++)
            for (int kx = 0; kx < kernel_w; kx++, t++)
                tofs[t] = (int)(c * in.cstep) + ky * dilation_h * in.w + kx * dilation_w;
    const int groups = dw.M / P;
    const int outw = out.w, outh = out.h;
    const float* src = (const float*)in.data;
    #pragma omp parallel for num_threads(num_threads) schedule(static) if (num_threads > 1)
    for (int idx = 0; idx < groups * outh; idx++)
    {
        const int g = idx / outh, y = idx % outh;
        const float* wp = dw.w.data() + (size_t)g * K * P;
        const typename V::T bias = V::load(dw.bias.data() + (size_t)g * P);
        const float* row = src + (size_t)y * stride_h * in.w;
        float* dst = (float*)out.data + out.cstep * P * g + (size_t)y * outw * P;
        conv_direct_row_xs<P>(stride_w, row, tofs.data(), K, wp, bias, dst, outw, P, act);
    }
}

// Grouped convolution with P input and P output channels a group (RegNet's
// group width 8, ResNeXt-style small groups): the same kernel with each
// group's P channels a run of lanes inside the packed input and output
// elements (their elempacks are multiples of P). in: padded, elempack ie;
// out: created by the caller, elempack oe; dw: M = every output channel,
// K = P * kh * kw per group.
template<int P>
static inline void conv_direct_grouped_forward(const Mat& in, Mat& out, const ConvDirectWeights& dw, int kernel_w,
                                               int kernel_h, int dilation_w, int dilation_h, int stride_w, int stride_h,
                                               const Activation& act, int num_threads)
{
    typedef simd::VF<P> V;
    const int K = dw.K;
    const int ie = in.elempack, oe = out.elempack;
    std::vector<int> tofs(K);
    for (int c = 0, t = 0; c < P; c++)
        for (int ky = 0; ky < kernel_h; ky++)
            for (int kx = 0; kx < kernel_w; kx++, t++)
                tofs[t] = c + (ky * dilation_h * in.w + kx * dilation_w) * ie;
    const int groups = dw.M / P;
    const int outw = out.w, outh = out.h;
    // blocks of B output pixels in row-major order across output rows: a
    // 7x7 or 14x14 map (RegNet's and ResNeXt's last stages) keeps B
    // accumulators busy where row by row 7 pixels ran as 2 + 2 + 2 + 1 (two
    // accumulators: the FMA latency, not the throughput)
    const int B = 8;
    const int xs = stride_w * ie;
    const int N = outw * outh;
    const int blocks = (N + B - 1) / B;
    #pragma omp parallel for num_threads(num_threads) schedule(static) if (num_threads > 1)
    for (int idx = 0; idx < groups * blocks; idx++)
    {
        const int g = idx / blocks, n0 = idx % blocks * B;
        const int nb = std::min(B, N - n0);
        const int m0 = g * P;
        const float* wp = dw.w.data() + (size_t)g * K * P;
        const typename V::T bias = V::load(dw.bias.data() + (size_t)m0);
        const float* base = (const float*)in.data + in.cstep * ie * (m0 / ie) + m0 % ie;
        typename V::T acc[B];
        // a whole block inside one row: the row kernel (its pixel step a constant)
        if (nb == B && n0 % outw + B <= outw
            && conv_direct_block_xs<P, B>(xs, base + ((n0 / outw) * stride_h * in.w + (n0 % outw) * stride_w) * ie,
                                          tofs.data(), K, wp, bias, acc))
        {
            float* dst = (float*)out.data + out.cstep * oe * (m0 / oe) + m0 % oe + (size_t)n0 * oe;
            for (int j = 0; j < B; j++)
                store_activated<P>(dst + (size_t)j * oe, acc[j], act);
            continue;
        }
        // each pixel's window origin (a short last block repeats its first
        // pixel: computed, not stored)
        int pofs[B];
        for (int j = 0; j < B; j++)
        {
            const int n = n0 + (j < nb ? j : 0);
            pofs[j] = ((n / outw) * stride_h * in.w + (n % outw) * stride_w) * ie;
        }
        for (int j = 0; j < B; j++)
            acc[j] = bias;
        for (int t = 0; t < K; t++)
        {
            const float* p = base + tofs[t];
            const typename V::T w = V::load(wp + (size_t)t * P);
            for (int j = 0; j < B; j++)
                acc[j] = V::fmadd(V::set1(p[pofs[j]]), w, acc[j]);
        }
        float* dst = (float*)out.data + out.cstep * oe * (m0 / oe) + m0 % oe + (size_t)n0 * oe;
        for (int j = 0; j < nb; j++)
            store_activated<P>(dst + (size_t)j * oe, acc[j], act);
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_CONV_DIRECT_PLANAR_H
