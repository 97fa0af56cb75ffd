// int8 convolution with VNNI's vpdpbusd (u8 x s8 quads summed into int32
// lanes): AVX512-VNNI on zmm, AVX-VNNI on ymm. The kernels are compiled once
// per VNNI level (conv_int8_vnni_x86.cpp in namespace kite::avx512vnni /
// kite::avxvnni, cmake/kite_layers.cmake) and called by the avx512 / avx2
// Convolution and InnerProduct drivers when the registry row they were
// created for is a VNNI level (Layer::isa), so the non-VNNI rows keep the
// pmaddwd kernels.
//
// Vectors run along the output pixels: the input is rearranged per tile of
// TN pixels as [K/4][TN] quads of 4 consecutive k (x + 128, unsigned) and
// each weight quad (signed) is broadcast. A tile that crosses output rows is
// gathered a row run at a time (masked byte loads on AVX-512, stride 1 and 2). The +128 comes back out through
// comp[m] = 128 * sum_k w[m][k], so the int32 sums are exactly the
// reference's and the shared epilogue keeps the outputs bit-identical.
#ifndef KITE_X86_CONV_INT8_VNNI_H
#define KITE_X86_CONV_INT8_VNNI_H

#include "common/conv_kernel.h"

#include <cstdint>
#include <vector>

namespace kite {

// Each int32 holds the four int8 weights k..k+3 of one channel (zero past K
// and past M). Two layouts: w for planar outputs (pixel lanes, weights
// broadcast): panels of NC channels [panels][K4][NC]; wc for packed fp32
// outputs (channel lanes, inputs broadcast): panels of NR channels
// [panels][K4][NR]. comp per channel, padded to whole panels of either.
struct ConvInt8VnniWeights
{
    int M = 0, K = 0, K4 = 0, NC = 0, NR = 0;
    std::vector<int32_t> w, wc;
    std::vector<int32_t> comp;
    int panels() const { return NC ? (M + NC - 1) / NC : 0; }
    int panels_c() const { return NR ? (M + NR - 1) / NR : 0; }
};

#define KITE_X86_DECLARE_VNNI_KERNELS(ns)                                                                   \
    namespace ns {                                                                                          \
    /* weight [M][K] int8 (ncnn's [out][in][kh][kw]) */                                                     \
    void conv_int8_vnni_pack_weights(const signed char* weight, int M, int K, ConvInt8VnniWeights& out);    \
    /* group 1, 2-D, out_elempack any; bit-identical to the reference */                                  \
    void conv_int8_vnni_gemm(const ConvInt8Job& j, const ConvInt8VnniWeights& pw, int num_threads);         \
    /* 1x1, stride 1, no padding, packed fp32 output (j.out_elempack > 1, no requantize): the input */     \
    /* already quantized as u8 (x + 128) packed by E = 4, 8 or 16 channels ([K/E][N][E], group_bytes */     \
    /* apart; E divides K); bit-identical to the reference */                                               \
    void conv1x1_int8_vnni_packed(const ConvInt8Job& j, const unsigned char* in_u8, size_t group_bytes, int E, \
                                  const ConvInt8VnniWeights& pw, int num_threads);                          \
    /* sums[m] = sum_k x[k] * w[m * K + k], m < M (int8, exact) */                                          \
    void int8_gemv_vnni(const signed char* x, const signed char* w, int M, int K, int32_t* sums, int num_threads); \
    }

KITE_X86_DECLARE_VNNI_KERNELS(avx512vnni)
KITE_X86_DECLARE_VNNI_KERNELS(avxvnni)

#undef KITE_X86_DECLARE_VNNI_KERNELS

} // namespace kite

#endif // KITE_X86_CONV_INT8_VNNI_H
