#ifndef KITE_LAYER_ARM_CONV_INT8_ARM_H
#define KITE_LAYER_ARM_CONV_INT8_ARM_H

// The int8 interface layer/x86/convolution_x86.cpp and
// convolutiondepthwise_x86.cpp expect from conv_int8_x86.h (pmaddwd
// kernels, x86 only), for their ARM builds: included first, it also defines
// that header's guard so the x86 one is skipped. int8 convolution on ARM runs
// the reference's kernels (common/conv_kernel.h, common/conv_int8_planes.h):
// conv_int8_pack_weights packs nothing (M stays 0), so the driver's int8
// hooks take the reference path (planar outputs), and packed fp32 inputs of
// an int8 layer are unpacked by the driver before the reference quantizes.
#define KITE_X86_CONV_INT8_H

#include "common/conv_int8_planes.h"
#include "common/conv_kernel.h"
#include "mat.h"

#include <cstdint>

namespace kite {
namespace KITE_ISA_NS {

struct ConvInt8PackedWeights
{
    int M = 0, K = 0; // 0: no packed int8 kernel on this ISA
};

static inline void conv_int8_pack_weights(const signed char*, int, int, ConvInt8PackedWeights& out)
{
    out = ConvInt8PackedWeights();
}

// the reference's int8 convolution for a job (what Convolution::run_int8 runs)
static inline void conv_int8_reference(const ConvInt8Job& j, int num_threads)
{
    if (j.group == 1 && conv_forward_int8_planes(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.g, j.pad_value, j.act,
                                                 num_threads, j.numerics))
        return;
    conv_forward_int8(j.in, j.out, j.weight, j.bias, j.scale_in, j.scale_out, j.group, j.g, j.pad_value, j.act, num_threads,
                      j.numerics);
}

// reached only with packed weights, which this ISA does not make
static inline void conv_int8_gemm(const ConvInt8Job& j, const ConvInt8PackedWeights&, int num_threads)
{
    conv_int8_reference(j, num_threads);
}

static inline void conv_int8_depthwise(const ConvInt8Job& j, int num_threads)
{
    conv_int8_reference(j, num_threads);
}

// no fused quantize-and-unpack: the driver unpacks, the reference quantizes
template<int P>
static inline int quantize_unpack_int8(const Mat&, Mat&, float, Allocator*, int)
{
    return -1;
}

// int8 matrix-vector product for InnerProduct's int8 path, exact:
// sums[m] = sum_k x[k] * w[m * K + k] (w: M rows of K, as the layer stores them)
static inline void int8_gemv(const signed char* x, const signed char* w, int M, int K, int32_t* sums, int num_threads)
{
    #pragma omp parallel for num_threads(num_threads)
    for (int m = 0; m < M; m++)
    {
        const signed char* wr = w + (size_t)K * m;
        int32_t s = 0;
        for (int k = 0; k < K; k++)
            s += (int32_t)x[k] * (int32_t)wr[k];
        sums[m] = s;
    }
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_LAYER_ARM_CONV_INT8_ARM_H
