#include "emit.h"

#include "layer/argmax.h"
#include "layer/batchnorm.h"
#include "layer/bias.h"
#include "layer/clip.h"
#include "layer/concat.h"
#include "layer/convolution.h"
#include "layer/crop.h"
#include "layer/deconvolution.h"
#include "layer/detectionoutput.h"
#include "layer/dropout.h"
#include "layer/elu.h"
#include "layer/embed.h"
#include "layer/exp.h"
#include "layer/expanddims.h"
#include "layer/gelu.h"
#include "layer/gemm.h"
#include "layer/hardsigmoid.h"
#include "layer/innerproduct.h"
#include "layer/input.h"
#include "layer/instancenorm.h"
#include "layer/interp.h"
#include "layer/layernorm.h"
#include "layer/lrn.h"
#include "layer/matmul.h"
#include "layer/memorydata.h"
#include "layer/mvn.h"
#include "layer/normalize.h"
#include "layer/permute.h"
#include "layer/pixelshuffle.h"
#include "layer/pooling.h"
#include "layer/power.h"
#include "layer/prelu.h"
#include "layer/priorbox.h"
#include "layer/relu.h"
#include "layer/reorg.h"
#include "layer/reshape.h"
#include "layer/scale.h"
#include "layer/selu.h"
#include "layer/shufflechannel.h"
#include "layer/slice.h"
#include "layer/softmax.h"
#include "layer/squeeze.h"
#include "layer/threshold.h"
#include "layer/tile.h"

namespace kite {
namespace convert {

std::string error_text(const std::string& kind, const std::string& name, const std::string& op,
                       const std::string& problem)
{
    std::string s = kind;
    if (!name.empty() || kind.empty())
        s += (s.empty() ? "'" : " '") + name + "'";
    if (!op.empty())
        s += " (" + op + ")";
    return s + ": " + problem;
}

void fail(const std::string& kind, const std::string& name, const std::string& op, const std::string& problem)
{
    throw ConvertError(error_text(kind, name, op, problem));
}

void put(ParamSet& p, int id, const IntField& f)
{
    if (f.is_set())
        p.set(id, f.get());
}

void put(ParamSet& p, int id, const FloatField& f)
{
    if (f.is_set())
        p.set(id, f.get());
}

void put(ParamSet& p, int id, const IntsField& f)
{
    if (f.is_set())
        p.set_ints(id, f.get());
}

void put(ParamSet& p, int id, const FloatsField& f)
{
    if (f.is_set())
        p.set_floats(id, f.get());
}

// Convolution, Deconvolution and InnerProduct share ids 9 and 10
static_assert((int)Convolution::PARAM_ACTIVATION_TYPE == (int)InnerProduct::PARAM_ACTIVATION_TYPE
                  && (int)Convolution::PARAM_ACTIVATION_TYPE == (int)Deconvolution::PARAM_ACTIVATION_TYPE
                  && (int)Convolution::PARAM_ACTIVATION_PARAMS == (int)InnerProduct::PARAM_ACTIVATION_PARAMS
                  && (int)Convolution::PARAM_ACTIVATION_PARAMS == (int)Deconvolution::PARAM_ACTIVATION_PARAMS,
              "fused activation ids differ between layer types");

void set_activation(Layer& l, int activation_type, const std::vector<float>& params)
{
    l.params.set(Convolution::PARAM_ACTIVATION_TYPE, activation_type);
    if (!params.empty())
        l.params.set_floats(Convolution::PARAM_ACTIVATION_PARAMS, params);
}

template<class Self>
template<class L>
void ConvGeometrySpec<Self>::write_shared(ParamSet& p) const
{
    put(p, L::PARAM_NUM_OUTPUT, num_output);
    put(p, L::PARAM_KERNEL_W, kernel_w);
    put(p, L::PARAM_KERNEL_H, kernel_h);
    put(p, L::PARAM_DILATION_W, dilation_w);
    put(p, L::PARAM_DILATION_H, dilation_h);
    put(p, L::PARAM_STRIDE_W, stride_w);
    put(p, L::PARAM_STRIDE_H, stride_h);
    put(p, L::PARAM_PAD_LEFT, pad_left);
    put(p, L::PARAM_PAD_RIGHT, pad_right);
    put(p, L::PARAM_PAD_TOP, pad_top);
    put(p, L::PARAM_PAD_BOTTOM, pad_bottom);
    put(p, L::PARAM_BIAS_TERM, bias_term);
    put(p, L::PARAM_WEIGHT_DATA_SIZE, weight_data_size);
    put(p, L::PARAM_GROUP, group);
    put(p, L::PARAM_ACTIVATION_TYPE, activation_type);
    put(p, L::PARAM_ACTIVATION_PARAMS, activation_params);
    put(p, L::PARAM_DYNAMIC_WEIGHT, dynamic_weight);
}

void ConvolutionSpec::write(ParamSet& p) const
{
    write_shared<Convolution>(p);
    put(p, Convolution::PARAM_PAD_VALUE, pad_value);
    put(p, Convolution::PARAM_INT8_SCALE_TERM, int8_scale_term);
}

void DeconvolutionSpec::write(ParamSet& p) const
{
    typedef Deconvolution L;
    write_shared<L>(p);
    put(p, L::PARAM_OUTPUT_PAD_RIGHT, output_pad_right);
    put(p, L::PARAM_OUTPUT_PAD_BOTTOM, output_pad_bottom);
    put(p, L::PARAM_OUTPUT_W, output_w);
    put(p, L::PARAM_OUTPUT_H, output_h);
}

void PoolingSpec::write(ParamSet& p) const
{
    typedef Pooling L;
    put(p, L::PARAM_POOLING_TYPE, pooling_type);
    put(p, L::PARAM_KERNEL_W, kernel_w);
    put(p, L::PARAM_KERNEL_H, kernel_h);
    put(p, L::PARAM_STRIDE_W, stride_w);
    put(p, L::PARAM_STRIDE_H, stride_h);
    put(p, L::PARAM_PAD_LEFT, pad_left);
    put(p, L::PARAM_PAD_RIGHT, pad_right);
    put(p, L::PARAM_PAD_TOP, pad_top);
    put(p, L::PARAM_PAD_BOTTOM, pad_bottom);
    put(p, L::PARAM_GLOBAL_POOLING, global_pooling);
    put(p, L::PARAM_PAD_MODE, pad_mode);
    put(p, L::PARAM_AVGPOOL_COUNT_INCLUDE_PAD, avgpool_count_include_pad);
    put(p, L::PARAM_ADAPTIVE_POOLING, adaptive_pooling);
    put(p, L::PARAM_OUT_W, out_w);
    put(p, L::PARAM_OUT_H, out_h);
}

void InnerProductSpec::write(ParamSet& p) const
{
    typedef InnerProduct L;
    put(p, L::PARAM_NUM_OUTPUT, num_output);
    put(p, L::PARAM_BIAS_TERM, bias_term);
    put(p, L::PARAM_WEIGHT_DATA_SIZE, weight_data_size);
    put(p, L::PARAM_INT8_SCALE_TERM, int8_scale_term);
    put(p, L::PARAM_ACTIVATION_TYPE, activation_type);
    put(p, L::PARAM_ACTIVATION_PARAMS, activation_params);
}

void GemmSpec::write(ParamSet& p) const
{
    typedef Gemm L;
    put(p, L::PARAM_ALPHA, alpha);
    put(p, L::PARAM_BETA, beta);
    put(p, L::PARAM_TRANS_A, trans_a);
    put(p, L::PARAM_TRANS_B, trans_b);
    put(p, L::PARAM_CONSTANT_A, constant_a);
    put(p, L::PARAM_CONSTANT_B, constant_b);
    put(p, L::PARAM_CONSTANT_C, constant_c);
    put(p, L::PARAM_CONSTANT_M, constant_m);
    put(p, L::PARAM_CONSTANT_N, constant_n);
    put(p, L::PARAM_CONSTANT_K, constant_k);
    put(p, L::PARAM_CONSTANT_BROADCAST_TYPE_C, constant_broadcast_type_c);
    put(p, L::PARAM_OUTPUT_N1M, output_n1m);
    put(p, L::PARAM_OUTPUT_TRANSPOSE, output_transpose);
}

void MatMulSpec::write(ParamSet& p) const
{
    put(p, MatMul::PARAM_TRANS_B, trans_b);
}

void BinaryOpSpec::write(ParamSet& p) const
{
    put(p, BinaryOp::PARAM_OP_TYPE, op_type);
    put(p, BinaryOp::PARAM_WITH_SCALAR, with_scalar);
    put(p, BinaryOp::PARAM_B, b);
}

void UnaryOpSpec::write(ParamSet& p) const
{
    put(p, UnaryOp::PARAM_OP_TYPE, op_type);
}

void EltwiseSpec::write(ParamSet& p) const
{
    put(p, Eltwise::PARAM_OP_TYPE, op_type);
    put(p, Eltwise::PARAM_COEFFS, coeffs);
}

void ReshapeSpec::write(ParamSet& p) const
{
    put(p, Reshape::PARAM_W, w);
    put(p, Reshape::PARAM_H, h);
    put(p, Reshape::PARAM_C, c);
    put(p, Reshape::PARAM_D, d);
}

void InputSpec::write(ParamSet& p) const
{
    put(p, Input::PARAM_W, w);
    put(p, Input::PARAM_H, h);
    put(p, Input::PARAM_C, c);
    put(p, Input::PARAM_D, d);
    put(p, Input::PARAM_FIXED_SIZE, fixed_size);
}

void MemoryDataSpec::write(ParamSet& p) const
{
    put(p, MemoryData::PARAM_W, w);
    put(p, MemoryData::PARAM_H, h);
    put(p, MemoryData::PARAM_C, c);
    put(p, MemoryData::PARAM_D, d);
}

void PermuteSpec::write(ParamSet& p) const
{
    put(p, Permute::PARAM_ORDER_TYPE, order_type);
}

void ConcatSpec::write(ParamSet& p) const
{
    put(p, Concat::PARAM_AXIS, axis);
}

void SliceSpec::write(ParamSet& p) const
{
    put(p, Slice::PARAM_SLICES, slices);
    put(p, Slice::PARAM_AXIS, axis);
    put(p, Slice::PARAM_INDICES, indices);
}

void CropSpec::write(ParamSet& p) const
{
    typedef Crop L;
    put(p, L::PARAM_WOFFSET, woffset);
    put(p, L::PARAM_HOFFSET, hoffset);
    put(p, L::PARAM_COFFSET, coffset);
    put(p, L::PARAM_DOFFSET, doffset);
    put(p, L::PARAM_OUTW, outw);
    put(p, L::PARAM_OUTH, outh);
    put(p, L::PARAM_OUTC, outc);
    put(p, L::PARAM_OUTD, outd);
    put(p, L::PARAM_WOFFSET2, woffset2);
    put(p, L::PARAM_HOFFSET2, hoffset2);
    put(p, L::PARAM_COFFSET2, coffset2);
    put(p, L::PARAM_DOFFSET2, doffset2);
    put(p, L::PARAM_STARTS, starts);
    put(p, L::PARAM_ENDS, ends);
    put(p, L::PARAM_AXES, axes);
}

void SoftmaxSpec::write(ParamSet& p) const
{
    put(p, Softmax::PARAM_AXIS, axis);
    put(p, Softmax::PARAM_FIXBUG0, fixbug0);
}

void LayerNormSpec::write(ParamSet& p) const
{
    put(p, LayerNorm::PARAM_AFFINE_SIZE, affine_size);
    put(p, LayerNorm::PARAM_EPS, eps);
    put(p, LayerNorm::PARAM_AFFINE, affine);
}

void BatchNormSpec::write(ParamSet& p) const
{
    put(p, BatchNorm::PARAM_CHANNELS, channels);
    put(p, BatchNorm::PARAM_EPS, eps);
}

void InstanceNormSpec::write(ParamSet& p) const
{
    put(p, InstanceNorm::PARAM_CHANNELS, channels);
    put(p, InstanceNorm::PARAM_EPS, eps);
    put(p, InstanceNorm::PARAM_AFFINE, affine);
}

void ScaleSpec::write(ParamSet& p) const
{
    put(p, Scale::PARAM_SCALE_DATA_SIZE, scale_data_size);
    put(p, Scale::PARAM_BIAS_TERM, bias_term);
}

void BiasSpec::write(ParamSet& p) const
{
    put(p, Bias::PARAM_BIAS_DATA_SIZE, bias_data_size);
}

void InterpSpec::write(ParamSet& p) const
{
    typedef Interp L;
    put(p, L::PARAM_RESIZE_TYPE, resize_type);
    put(p, L::PARAM_HEIGHT_SCALE, height_scale);
    put(p, L::PARAM_WIDTH_SCALE, width_scale);
    put(p, L::PARAM_OUTPUT_HEIGHT, output_height);
    put(p, L::PARAM_OUTPUT_WIDTH, output_width);
    put(p, L::PARAM_DYNAMIC_TARGET_SIZE, dynamic_target_size);
    put(p, L::PARAM_ALIGN_CORNER, align_corner);
}

void PaddingSpec::write(ParamSet& p) const
{
    typedef Padding L;
    put(p, L::PARAM_TOP, top);
    put(p, L::PARAM_BOTTOM, bottom);
    put(p, L::PARAM_LEFT, left);
    put(p, L::PARAM_RIGHT, right);
    put(p, L::PARAM_TYPE, pad_type);
    put(p, L::PARAM_VALUE, value);
    put(p, L::PARAM_FRONT, front);
    put(p, L::PARAM_BEHIND, behind);
}

void ReductionSpec::write(ParamSet& p) const
{
    typedef Reduction L;
    put(p, L::PARAM_OPERATION, operation);
    put(p, L::PARAM_REDUCE_ALL, reduce_all);
    put(p, L::PARAM_COEFF, coeff);
    put(p, L::PARAM_AXES, axes);
    put(p, L::PARAM_KEEPDIMS, keepdims);
    put(p, L::PARAM_FIXBUG0, fixbug0);
}

void ClipSpec::write(ParamSet& p) const
{
    put(p, Clip::PARAM_MIN, min);
    put(p, Clip::PARAM_MAX, max);
}

void ReLUSpec::write(ParamSet& p) const
{
    put(p, ReLU::PARAM_SLOPE, slope);
}

void ELUSpec::write(ParamSet& p) const
{
    put(p, ELU::PARAM_ALPHA, alpha);
}

void SELUSpec::write(ParamSet& p) const
{
    put(p, SELU::PARAM_ALPHA, alpha);
    put(p, SELU::PARAM_LAMBDA, lambda);
}

void GELUSpec::write(ParamSet& p) const
{
    put(p, GELU::PARAM_FAST_GELU, fast_gelu);
}

void HardSigmoidSpec::write(ParamSet& p) const
{
    put(p, HardSigmoid::PARAM_ALPHA, alpha);
    put(p, HardSigmoid::PARAM_BETA, beta);
}

void PReLUSpec::write(ParamSet& p) const
{
    put(p, PReLU::PARAM_NUM_SLOPE, num_slope);
}

void PowerSpec::write(ParamSet& p) const
{
    put(p, Power::PARAM_POWER, power);
    put(p, Power::PARAM_SCALE, scale);
    put(p, Power::PARAM_SHIFT, shift);
}

void ExpSpec::write(ParamSet& p) const
{
    put(p, Exp::PARAM_BASE, base);
    put(p, Exp::PARAM_SCALE, scale);
    put(p, Exp::PARAM_SHIFT, shift);
}

void ThresholdSpec::write(ParamSet& p) const
{
    put(p, Threshold::PARAM_THRESHOLD, threshold);
}

void LRNSpec::write(ParamSet& p) const
{
    put(p, LRN::PARAM_REGION_TYPE, region_type);
    put(p, LRN::PARAM_LOCAL_SIZE, local_size);
    put(p, LRN::PARAM_ALPHA, alpha);
    put(p, LRN::PARAM_BETA, beta);
    put(p, LRN::PARAM_BIAS, bias);
}

void MVNSpec::write(ParamSet& p) const
{
    put(p, MVN::PARAM_NORMALIZE_VARIANCE, normalize_variance);
    put(p, MVN::PARAM_ACROSS_CHANNELS, across_channels);
    put(p, MVN::PARAM_EPS, eps);
}

void NormalizeSpec::write(ParamSet& p) const
{
    put(p, Normalize::PARAM_ACROSS_SPATIAL, across_spatial);
    put(p, Normalize::PARAM_CHANNEL_SHARED, channel_shared);
    put(p, Normalize::PARAM_EPS, eps);
    put(p, Normalize::PARAM_SCALE_DATA_SIZE, scale_data_size);
    put(p, Normalize::PARAM_ACROSS_CHANNEL, across_channel);
    put(p, Normalize::PARAM_EPS_MODE, eps_mode);
}

void ArgMaxSpec::write(ParamSet& p) const
{
    put(p, ArgMax::PARAM_OUT_MAX_VAL, out_max_val);
    put(p, ArgMax::PARAM_TOPK, topk);
}

void ShuffleChannelSpec::write(ParamSet& p) const
{
    put(p, ShuffleChannel::PARAM_GROUP, group);
    put(p, ShuffleChannel::PARAM_REVERSE, reverse);
}

void PixelShuffleSpec::write(ParamSet& p) const
{
    put(p, PixelShuffle::PARAM_UPSCALE_FACTOR, upscale_factor);
    put(p, PixelShuffle::PARAM_MODE, mode);
}

void ReorgSpec::write(ParamSet& p) const
{
    put(p, Reorg::PARAM_STRIDE, stride);
    put(p, Reorg::PARAM_MODE, mode);
}

void TileSpec::write(ParamSet& p) const
{
    put(p, Tile::PARAM_AXIS, axis);
    put(p, Tile::PARAM_TILES, tiles);
    put(p, Tile::PARAM_REPEATS, repeats);
}

void EmbedSpec::write(ParamSet& p) const
{
    put(p, Embed::PARAM_NUM_OUTPUT, num_output);
    put(p, Embed::PARAM_INPUT_DIM, input_dim);
    put(p, Embed::PARAM_BIAS_TERM, bias_term);
    put(p, Embed::PARAM_WEIGHT_DATA_SIZE, weight_data_size);
}

void PriorBoxSpec::write(ParamSet& p) const
{
    typedef PriorBox L;
    put(p, L::PARAM_MIN_SIZES, min_sizes);
    put(p, L::PARAM_MAX_SIZES, max_sizes);
    put(p, L::PARAM_ASPECT_RATIOS, aspect_ratios);
    put(p, L::PARAM_VARIANCE0, variance[0]);
    put(p, L::PARAM_VARIANCE1, variance[1]);
    put(p, L::PARAM_VARIANCE2, variance[2]);
    put(p, L::PARAM_VARIANCE3, variance[3]);
    put(p, L::PARAM_FLIP, flip);
    put(p, L::PARAM_CLIP, clip);
    put(p, L::PARAM_IMAGE_WIDTH, image_width);
    put(p, L::PARAM_IMAGE_HEIGHT, image_height);
    put(p, L::PARAM_STEP_WIDTH, step_width);
    put(p, L::PARAM_STEP_HEIGHT, step_height);
    put(p, L::PARAM_OFFSET, offset);
}

void DetectionOutputSpec::write(ParamSet& p) const
{
    typedef DetectionOutput L;
    put(p, L::PARAM_NUM_CLASS, num_class);
    put(p, L::PARAM_NMS_THRESHOLD, nms_threshold);
    put(p, L::PARAM_NMS_TOP_K, nms_top_k);
    put(p, L::PARAM_KEEP_TOP_K, keep_top_k);
    put(p, L::PARAM_CONFIDENCE_THRESHOLD, confidence_threshold);
}

void DropoutSpec::write(ParamSet& p) const
{
    put(p, Dropout::PARAM_SCALE, scale);
}

void SqueezeSpec::write(ParamSet& p) const
{
    static_assert((int)Squeeze::PARAM_AXES == (int)ExpandDims::PARAM_AXES
                      && (int)Squeeze::PARAM_SQUEEZE_W == (int)ExpandDims::PARAM_EXPAND_W
                      && (int)Squeeze::PARAM_SQUEEZE_D == (int)ExpandDims::PARAM_EXPAND_D,
                  "Squeeze and ExpandDims ids differ");
    put(p, Squeeze::PARAM_SQUEEZE_W, w);
    put(p, Squeeze::PARAM_SQUEEZE_H, h);
    put(p, Squeeze::PARAM_SQUEEZE_C, c);
    put(p, Squeeze::PARAM_SQUEEZE_D, d);
    put(p, Squeeze::PARAM_AXES, axes);
}

} // namespace convert
} // namespace kite
