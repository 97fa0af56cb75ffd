// Convolution for ARM: the VF<N> driver of layer/x86/convolution_x86.cpp on
// NEON (its class renamed Convolution_arm_fp32): packed GEMM with implicit
// im2col (conv_gemm_x86.h: 6 pixels x 8 output channels of fp32 accumulators
// per micro tile) on inputs of elempack 1/4, outputs packed 4 where
// num_output allows, Winograd F(6,3)/F(4,3) for 3x3 stride 1
// (conv_winograd_x86.h). int8 runs the reference's kernels (conv_int8_arm.h).
// On arm82 with fp16 storage and fp16 arithmetic, layers whose input and
// output channels pack by 8 run conv_fp16_arm.h's pack-8 fp16 GEMM instead.
#include "arm/portable_arm.h"

#include "arm/conv_int8_arm.h"

#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)

#define Convolution_x86 Convolution_arm_fp32
#include "../x86/convolution_x86.cpp"
#undef Convolution_x86

#include "arm/conv_fp16_arm.h"

namespace kite {
namespace KITE_ISA_NS {

class Convolution_arm : public Convolution_arm_fp32
{
public:
    int create_pipeline(const Option& opt) override
    {
        int ret = Convolution_arm_fp32::create_pipeline(opt);
        support_fp16_storage = false;
        fp16w = ConvFp16Weights();
        if (ret != 0 || weight_data.elemsize != 4u || !opt.use_fp16_storage || !opt.use_fp16_arithmetic)
            return ret;
        const int maxk = kernel_w * kernel_h;
        ret = conv_fp16_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output,
                                     weight_data_size / (num_output * maxk), maxk, fp16w);
        support_fp16_storage = fp16w.M != 0;
        act16 = Activation(activation_type, activation_params);
        return ret;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (fp16w.M == 0 || bottom_blob.elembits() != 16)
            return Convolution_arm_fp32::forward(bottom_blob, top_blob, opt);
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (bottom_blob.dims != 3 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
        {
            // shapes the fp16 kernel does not take: the fp32 driver
            Mat f;
            int ret = conv_fp16_to_fp32(bottom_blob, f, opt);
            return ret != 0 ? ret : Convolution_arm_fp32::forward(f, top_blob, opt);
        }
        const ConvFp16Geometry g = {kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h};
        const std::string what = "Convolution '" + name + "'";
        Mat padded;
        int ret = conv_fp16_begin(bottom_blob, padded, top_blob, pads, pad_value, fp16w.C, num_output, g, what.c_str(), opt);
        if (ret != 0)
            return ret;
        conv_fp16_forward(padded, top_blob, fp16w, g, act16, opt.num_threads);
        return 0;
    }

    using Convolution_arm_fp32::forward;

private:
    ConvFp16Weights fp16w;
    Activation act16;
};

DEFINE_LAYER_CREATOR(Convolution_arm)

} // namespace KITE_ISA_NS
} // namespace kite

#else

#define Convolution_x86 Convolution_arm
#include "../x86/convolution_x86.cpp"
#undef Convolution_x86

#endif
