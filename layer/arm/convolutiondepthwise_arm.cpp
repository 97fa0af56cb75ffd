// ConvolutionDepthWise for ARM: the VF<N> driver of
// layer/x86/convolutiondepthwise_x86.cpp on NEON (depth-wise on elempack 1/4,
// one vector FMA per tap for 4 channels, 4 outputs per weight load), its
// class renamed ConvolutionDepthWise_arm_fp32. int8 runs the reference's
// kernels (conv_int8_arm.h). On arm82 with fp16 storage and fp16
// arithmetic, channels that pack by 8 run conv_fp16_arm.h's pack-8 fp16
// depth-wise kernel instead.
#include "arm/portable_arm.h"

#include "arm/conv_int8_arm.h"

#if defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)

#define ConvolutionDepthWise_x86 ConvolutionDepthWise_arm_fp32
#include "../x86/convolutiondepthwise_x86.cpp"
#undef ConvolutionDepthWise_x86

#include "arm/conv_fp16_arm.h"

namespace kite {
namespace KITE_ISA_NS {

class ConvolutionDepthWise_arm : public ConvolutionDepthWise_arm_fp32
{
public:
    int create_pipeline(const Option& opt) override
    {
        int ret = ConvolutionDepthWise_arm_fp32::create_pipeline(opt);
        support_fp16_storage = false;
        fp16w = ConvDwFp16Weights();
        if (ret != 0 || weight_data.elemsize != 4u || int8_scale_term != 0 || !opt.use_fp16_storage || !opt.use_fp16_arithmetic)
            return ret;
        ret = conv_dw_fp16_pack_weights(weight_data, bias_term ? (const float*)bias_data : nullptr, num_output,
                                        kernel_w * kernel_h, fp16w);
        support_fp16_storage = fp16w.C != 0;
        act16 = Activation(activation_type, activation_params);
        return ret;
    }

    int forward(const Mat& bottom_blob, Mat& top_blob, const Option& opt) const override
    {
        if (fp16w.C == 0 || bottom_blob.elembits() != 16)
            return ConvolutionDepthWise_arm_fp32::forward(bottom_blob, top_blob, opt);
        int pads[4];
        resolve_pads_2d(bottom_blob.w, bottom_blob.h, pads);
        if (bottom_blob.dims != 3 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0)
        {
            Mat f;
            int ret = conv_fp16_to_fp32(bottom_blob, f, opt);
            return ret != 0 ? ret : ConvolutionDepthWise_arm_fp32::forward(f, top_blob, opt);
        }
        const ConvFp16Geometry g = {kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h};
        const std::string what = "ConvolutionDepthWise '" + name + "'";
        Mat padded;
        int ret = conv_fp16_begin(bottom_blob, padded, top_blob, pads, pad_value, fp16w.C, fp16w.C, g, what.c_str(), opt);
        if (ret != 0)
            return ret;
        conv_dw_fp16_forward(padded, top_blob, fp16w, g, act16, opt.num_threads);
        return 0;
    }

    using ConvolutionDepthWise_arm_fp32::forward;

private:
    ConvDwFp16Weights fp16w;
    Activation act16;
};

DEFINE_LAYER_CREATOR(ConvolutionDepthWise_arm)

} // namespace KITE_ISA_NS
} // namespace kite

#else

#define ConvolutionDepthWise_x86 ConvolutionDepthWise_arm
#include "../x86/convolutiondepthwise_x86.cpp"
#undef ConvolutionDepthWise_x86

#endif
