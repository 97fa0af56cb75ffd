// What the x86 depth-wise drivers (ConvolutionDepthWise, DeconvolutionDepthWise)
// share: weights repacked once per elempack, and the reference run on an
// elempack-1 copy for the inputs their packed kernels do not take.
//
// Included by layer/cpu/*_cpu.cpp; compiled once per ISA in kite::KITE_ISA_NS.
#ifndef KITE_CPU_DEPTHWISE_PACK_H
#define KITE_CPU_DEPTHWISE_PACK_H

#include "cpu/conv_vec_cpu.h"
#include "cpu/fast_buffer_cpu.h"
#include "log.h"
#include "mat.h"
#include "option.h"

#include <string>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

static const int kDwPackCount = 4; // elempack 1, 4, 8, 16

// the slot of elempack P in kDwPackCount arrays, -1 for none
static inline int dw_pack_index(int P)
{
    return P == 1 ? 0 : P == 4 ? 1 : P == 8 ? 2 : P == 16 ? 3 : -1;
}

// the slot of packed (kDwPackCount copies) that a packed kernel uses for
// bottom_blob: fp32, dims 3, an elempack with repacked weights; else -1
static inline int dw_packed_slot(const Mat& bottom_blob, const FastBuffer<float>* packed)
{
    const int pi = dw_pack_index(bottom_blob.elempack);
    if (bottom_blob.dims != 3 || bottom_blob.elemsize != 4u * bottom_blob.elempack || pi < 0 || packed[pi].empty())
        return -1;
    return pi;
}

// weight [channels][maxk] as one copy per elempack this ISA can be handed,
// [channels/P][maxk][P]; empty where P does not divide channels. false: out
// of memory
static inline bool dw_repack_weights(const float* w, int channels, int maxk, FastBuffer<float>* packed)
{
    for (int pi = 0; pi < kDwPackCount; pi++)
    {
        const int P = pi == 0 ? 1 : 2 << pi; // 1, 4, 8, 16
        FastBuffer<float>& dst = packed[pi];
        dst.clear();
        if (P > kMaxPack || channels % P != 0)
            continue;
        if (!dst.resize((size_t)channels * maxk))
            return false;
        for (int q = 0; q < channels / P; q++)
            for (int k = 0; k < maxk; k++)
                for (int i = 0; i < P; i++)
                    dst[((size_t)q * maxk + k) * P + i] = w[(size_t)(q * P + i) * maxk + k];
    }
    return true;
}

// whether a packed input has the channel count the weights were packed for
// (logs the mismatch, naming the layer)
static inline bool dw_channels_match(const Mat& bottom_blob, int num_output, const char* type, const std::string& name)
{
    if (bottom_blob.c * bottom_blob.elempack == num_output)
        return true;
    KITE_LOGE("%s '%s': input has %d channels, the weights expect %d", type, name.c_str(), bottom_blob.c * bottom_blob.elempack,
              num_output);
    return false;
}

// reference(in, top) on bottom_blob, unpacked first when it is packed
template<class Reference>
static inline int dw_forward_unpacked(const Mat& bottom_blob, const Option& opt, const Reference& reference)
{
    if (bottom_blob.elempack == 1)
        return reference(bottom_blob);
    Mat unpacked;
    convert_packing(bottom_blob, unpacked, 1, opt);
    if (unpacked.empty())
        return -100;
    return reference(unpacked);
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_DEPTHWISE_PACK_H
