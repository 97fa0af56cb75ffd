// 1x1 stride-1 convolution on planar (elempack 1) input and output, the
// vectors along the pixels: out[m][n..] = bias[m] + sum_k w[m][k] * in[k][n..].
// For outputs whose channel count packs by nothing (shufflenet_v2's 58,
// blazeface's 42, detection heads' 255): a channel-vector GEMM would have to
// scatter every output value to its own plane, here each accumulator is a
// run of one plane. A block is MB channels x NV vectors of pixels; the
// weights are packed [ceil(M/MB)][K][MB] so a k step broadcasts MB
// consecutive floats.
//
// Included by layer/cpu/*_cpu.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_CPU_CONV1X1_PLANAR_H
#define KITE_CPU_CONV1X1_PLANAR_H

#include "cpu/conv_vec_cpu.h"
#include "cpu/fast_buffer_cpu.h"
#include "mat.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// channels per block; pixel vectors per block (32 registers: 6 x 4
// accumulators, 16: 6 x 2)
static const int kPlanarMB = 6;
#if KITE_SIMD_MAX_N >= 16 || defined(__aarch64__)
static const int kPlanarNV = 4;
#else
static const int kPlanarNV = 2;
#endif

struct ConvPlanarWeights
{
    int M = 0, K = 0;
    FastBuffer<float> w;    // [ceil(M/MB)][K][MB], zero padded
    FastBuffer<float> bias; // ceil(M/MB)*MB, zero padded
};

// weight [M][K] (a 1x1 layer's), bias or null. false: out of memory
static inline bool conv_planar_pack_weights(const float* weight, const float* bias, int M, int K, ConvPlanarWeights& out)
{
    const int MB = kPlanarMB;
    const int blocks = (M + MB - 1) / MB;
    out.M = 0;
    out.K = K;
    if (!out.w.assign((size_t)blocks * K * MB, 0.f) || !out.bias.assign((size_t)blocks * MB, 0.f))
    {
        out.w.clear();
        return false;
    }
    for (int m = 0; m < M; m++)
    {
        float* dst = out.w.data() + (size_t)(m / MB) * K * MB + m % MB;
        for (int k = 0; k < K; k++)
            dst[(size_t)k * MB] = weight[(size_t)m * K + k];
        if (bias)
            out.bias[m] = bias[m];
    }
    out.M = M;
    return true;
}

// one block: channels mb*MB.. (mn of them real) of NV vectors of pixels read
// from src (plane k at src + k * cs), written to dst (channel m's plane at
// dst + m * ocs; the first `valid` pixels of the block)
template<class V, int NV>
static inline void conv_planar_block(const float* src, size_t cs, const ConvPlanarWeights& pw, int mb, int mn, float* dst,
                                     size_t ocs, int valid, const Activation& act)
{
    const int MB = kPlanarMB;
    const int K = pw.K;
    const float* wp = pw.w.data() + (size_t)mb * K * MB;
    const float* bp = pw.bias.data() + (size_t)mb * MB;
    typename V::T acc[MB][NV];
#pragma GCC unroll 6
    for (int m = 0; m < MB; m++)
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++)
            acc[m][j] = V::set1(bp[m]);
    for (int k = 0; k < K; k++)
    {
        typename V::T x[NV];
#pragma GCC unroll 4
        for (int j = 0; j < NV; j++)
            x[j] = V::load(src + k * cs + j * V::N);
        const float* wk = wp + (size_t)k * MB;
#pragma GCC unroll 6
        for (int m = 0; m < MB; m++)
        {
            const typename V::T wv = V::set1(wk[m]);
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++)
                acc[m][j] = V::fmadd(x[j], wv, acc[m][j]);
        }
    }
    float* d0 = dst + ocs * (size_t)(mb * MB);
    for (int m = 0; m < mn; m++)
    {
        float* d = d0 + ocs * (size_t)m;
        if (valid == NV * V::N)
        {
#pragma GCC unroll 4
            for (int j = 0; j < NV; j++)
                store_activated<V::N>(d + j * V::N, acc[m][j], act);
            continue;
        }
        float t[NV * V::N];
        for (int j = 0; j < NV; j++)
            store_activated<V::N>(t + j * V::N, acc[m][j], act);
        memcpy(d, t, (size_t)valid * sizeof(float));
    }
}

// in: C = pw.K planes (elempack 1); out: pw.M planes of the same w x h
static inline void conv1x1_planar_forward(const Mat& in, Mat& out, const ConvPlanarWeights& pw, const Activation& act,
                                          int num_threads)
{
    typedef simd::VF<kMaxPack> V;
    const int MB = kPlanarMB;
    const int N = in.w * in.h;
    const int K = pw.K;
    const int blocks = (pw.M + MB - 1) / MB;
    const int span = kPlanarNV * V::N; // pixels per full block
    const int spans = (N + span - 1) / span;
    const float* src = (const float*)in.data;
    float* dst = (float*)out.data;
    // pixel spans outside, channel blocks inside: a span of the input stays
    // in cache while every channel block runs on it
    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<float> tail; // the last pixels of every plane, zero padded to whole vectors
        #pragma omp for schedule(static)
        for (int si = 0; si < spans; si++)
        {
            const int n0 = si * span, n1 = std::min(N, n0 + span);
            int n = n0;
            for (; n + span <= n1; n += span)
                for (int mb = 0; mb < blocks; mb++)
                    conv_planar_block<V, kPlanarNV>(src + n, in.cstep, pw, mb, std::min(MB, pw.M - mb * MB), dst + n,
                                                    out.cstep, span, act);
            for (; n + V::N <= n1; n += V::N)
                for (int mb = 0; mb < blocks; mb++)
                    conv_planar_block<V, 1>(src + n, in.cstep, pw, mb, std::min(MB, pw.M - mb * MB), dst + n, out.cstep,
                                            V::N, act);
            if (n < n1)
            {
                // fewer pixels than a vector: copied into a zero-padded [K][V::N]
                const int rem = n1 - n;
                tail.assign((size_t)K * V::N, 0.f);
                for (int k = 0; k < K; k++)
                    memcpy(tail.data() + (size_t)k * V::N, src + in.cstep * k + n, (size_t)rem * sizeof(float));
                for (int mb = 0; mb < blocks; mb++)
                    conv_planar_block<V, 1>(tail.data(), V::N, pw, mb, std::min(MB, pw.M - mb * MB), dst + n, out.cstep,
                                            rem, act);
            }
        }
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_CONV1X1_PLANAR_H
