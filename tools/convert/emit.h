#ifndef KITE_CONVERT_EMIT_H
#define KITE_CONVERT_EMIT_H

// The one way the converters (caffe2kite, onnx2kite, tensorflow2kite) and
// kiteoptimize write layer parameters: a typed spec per kite layer type,
// written through the layer's own ParamId enum (layer/<op>.h).
//
//   kite::convert::ConvolutionSpec s;
//   s.num_output = 32;
//   s.kernel(3, 3).stride(2, 2).pads(1, 1, 1, 1);
//   s.bias_term = 1;
//   s.weight_data_size = (int)w.size();
//   Layer& l = kite::convert::emit(g, s, name, {"data"}, {"conv1"});
//
// Each field is a Field<T>: written to the .param only when the converter set
// it (an unset field takes the layer's load_param default), so a converter
// writes exactly what it means and nothing else. Fields are typed: ints are
// written as ints, floats as floats (the loader reads `1.0`, never `1`).
//
// Errors: every converter throws ConvertError (below) inside and reports one
// line `<converter>: <node/layer> '<name>' (<op>): <problem>` (error_text()).

#include "graph.h"

#include "layer/common/activation.h"
#include "layer/binaryop.h"
#include "layer/unaryop.h"
#include "layer/reduction.h"
#include "layer/eltwise.h"
#include "layer/padding.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace kite {
namespace convert {

// ---- errors -----------------------------------------------------------------

// The converters' one error type (tools may throw; the runtime may not).
struct ConvertError : public std::runtime_error
{
    explicit ConvertError(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

// "<kind> '<name>' (<op>): <problem>", e.g. "node 'conv1' (Conv): ...".
// The tool prefixes "<converter>: error: " when printing.
std::string error_text(const std::string& kind, const std::string& name, const std::string& op,
                       const std::string& problem);
[[noreturn]] void fail(const std::string& kind, const std::string& name, const std::string& op,
                       const std::string& problem);

// ---- typed fields -----------------------------------------------------------

template<typename T>
class Field
{
public:
    Field() {}
    Field(const T& v)
        : value_(v), set_(true)
    {
    }
    Field& operator=(const T& v)
    {
        value_ = v;
        set_ = true;
        return *this;
    }
    bool is_set() const { return set_; }
    const T& get() const { return value_; }
    void clear() { set_ = false; }

private:
    T value_ = T();
    bool set_ = false;
};

typedef Field<int> IntField;
typedef Field<float> FloatField;
typedef Field<std::vector<int> > IntsField;
typedef Field<std::vector<float> > FloatsField;

// write a field when set
void put(ParamSet& p, int id, const IntField& f);
void put(ParamSet& p, int id, const FloatField& f);
void put(ParamSet& p, int id, const IntsField& f);
void put(ParamSet& p, int id, const FloatsField& f);

// Append a layer of spec `s` to g (name made unique) and write its params.
template<class Spec>
Layer& emit(Graph& g, const Spec& s, const std::string& name, const std::vector<std::string>& bottoms,
            const std::vector<std::string>& tops)
{
    Layer& l = g.add(s.type, name, bottoms, tops);
    s.write(l.params);
    return l;
}

// The fused activation of Convolution/Deconvolution/InnerProduct (params
// 9 and 10 there): written into an existing layer.
void set_activation(Layer& l, int activation_type, const std::vector<float>& params);

// ---- one spec per kite layer type -------------------------------------------
// `type` is the kite/ncnn type name written; the grouped/depth-wise variants
// read the same ids (ConvolutionSpec::type = "ConvolutionDepthWise").

// the fields Convolution and Deconvolution (and their depth-wise variants)
// share, written through each layer's own ids by write_shared<L>() (emit.cpp)
template<class Self>
struct ConvGeometrySpec
{
    IntField num_output, kernel_w, kernel_h, dilation_w, dilation_h, stride_w, stride_h;
    IntField pad_left, pad_right, pad_top, pad_bottom, bias_term, weight_data_size, group;
    IntField activation_type, dynamic_weight;
    FloatsField activation_params;

    Self& kernel(int w, int h) { kernel_w = w; kernel_h = h; return self(); }
    Self& dilation(int w, int h) { dilation_w = w; dilation_h = h; return self(); }
    Self& stride(int w, int h) { stride_w = w; stride_h = h; return self(); }
    Self& pads(int left, int right, int top, int bottom)
    {
        pad_left = left; pad_right = right; pad_top = top; pad_bottom = bottom;
        return self();
    }

protected:
    Self& self() { return static_cast<Self&>(*this); }
    template<class L>
    void write_shared(ParamSet& p) const;
};

// Convolution, ConvolutionDepthWise
struct ConvolutionSpec : ConvGeometrySpec<ConvolutionSpec>
{
    std::string type = "Convolution";
    IntField int8_scale_term;
    FloatField pad_value;
    void write(ParamSet& p) const;
};

// Deconvolution, DeconvolutionDepthWise
struct DeconvolutionSpec : ConvGeometrySpec<DeconvolutionSpec>
{
    std::string type = "Deconvolution";
    IntField output_pad_right, output_pad_bottom, output_w, output_h;
    void write(ParamSet& p) const;
};

struct PoolingSpec
{
    enum PoolingType
    {
        MAX = 0,
        AVG = 1,
    };
    std::string type = "Pooling";
    IntField pooling_type, kernel_w, kernel_h, stride_w, stride_h;
    IntField pad_left, pad_right, pad_top, pad_bottom, global_pooling, pad_mode, avgpool_count_include_pad;
    IntField adaptive_pooling, out_w, out_h;

    PoolingSpec& kernel(int w, int h) { kernel_w = w; kernel_h = h; return *this; }
    PoolingSpec& stride(int w, int h) { stride_w = w; stride_h = h; return *this; }
    PoolingSpec& pads(int left, int right, int top, int bottom)
    {
        pad_left = left; pad_right = right; pad_top = top; pad_bottom = bottom;
        return *this;
    }
    void write(ParamSet& p) const;
};

struct InnerProductSpec
{
    std::string type = "InnerProduct";
    IntField num_output, bias_term, weight_data_size, int8_scale_term, activation_type;
    FloatsField activation_params;
    void write(ParamSet& p) const;
};

struct GemmSpec
{
    std::string type = "Gemm";
    FloatField alpha, beta;
    IntField trans_a, trans_b, constant_a, constant_b, constant_c, constant_m, constant_n, constant_k;
    IntField constant_broadcast_type_c, output_n1m, output_transpose;
    void write(ParamSet& p) const;
};

struct MatMulSpec
{
    std::string type = "MatMul";
    IntField trans_b;
    void write(ParamSet& p) const;
};

// op_type: BinaryOp::Operation_*; with_scalar + b: the second operand is b
struct BinaryOpSpec
{
    std::string type = "BinaryOp";
    IntField op_type, with_scalar;
    FloatField b;
    static BinaryOpSpec op(int o)
    {
        BinaryOpSpec s;
        s.op_type = o;
        return s;
    }
    static BinaryOpSpec scalar(int o, float v)
    {
        BinaryOpSpec s;
        s.op_type = o;
        s.with_scalar = 1;
        s.b = v;
        return s;
    }
    void write(ParamSet& p) const;
};

// op_type: UnaryOp::Operation_*
struct UnaryOpSpec
{
    std::string type = "UnaryOp";
    IntField op_type;
    static UnaryOpSpec op(int o)
    {
        UnaryOpSpec s;
        s.op_type = o;
        return s;
    }
    void write(ParamSet& p) const;
};

struct EltwiseSpec
{
    std::string type = "Eltwise";
    IntField op_type; // Eltwise::Operation_*
    FloatsField coeffs;
    void write(ParamSet& p) const;
};

// w, h, d, c: kite's shape (-1 inferred, 0 copied); shape_expr: a shape expression
struct ReshapeSpec
{
    std::string type = "Reshape";
    IntField w, h, d, c;
    void write(ParamSet& p) const;
};

// Input and MemoryData share w/h/c/d
struct InputSpec
{
    std::string type = "Input";
    IntField w, h, d, c;
    IntField fixed_size; // 1: kite refuses another input shape (see input_size.h)
    void write(ParamSet& p) const;
};

struct MemoryDataSpec
{
    std::string type = "MemoryData";
    IntField w, h, d, c;
    void write(ParamSet& p) const;
};

struct PermuteSpec
{
    std::string type = "Permute";
    IntField order_type;
    static PermuteSpec order(int o)
    {
        PermuteSpec s;
        s.order_type = o;
        return s;
    }
    void write(ParamSet& p) const;
};

struct ConcatSpec
{
    std::string type = "Concat";
    IntField axis;
    static ConcatSpec on(int a)
    {
        ConcatSpec s;
        s.axis = a;
        return s;
    }
    void write(ParamSet& p) const;
};

struct SliceSpec
{
    std::string type = "Slice";
    IntsField slices, indices;
    IntField axis;
    void write(ParamSet& p) const;
};

struct CropSpec
{
    std::string type = "Crop";
    IntField woffset, hoffset, doffset, coffset, outw, outh, outd, outc, woffset2, hoffset2, doffset2, coffset2;
    IntsField starts, ends, axes;
    void write(ParamSet& p) const;
};

struct SoftmaxSpec
{
    std::string type = "Softmax";
    IntField axis, fixbug0;
    void write(ParamSet& p) const;
};

struct LayerNormSpec
{
    std::string type = "LayerNorm";
    IntField affine_size, affine;
    FloatField eps;
    void write(ParamSet& p) const;
};

struct BatchNormSpec
{
    std::string type = "BatchNorm";
    IntField channels;
    FloatField eps;
    void write(ParamSet& p) const;
};

struct InstanceNormSpec
{
    std::string type = "InstanceNorm";
    IntField channels, affine;
    FloatField eps;
    void write(ParamSet& p) const;
};

struct ScaleSpec
{
    std::string type = "Scale";
    IntField scale_data_size, bias_term;
    void write(ParamSet& p) const;
};

struct BiasSpec
{
    std::string type = "Bias";
    IntField bias_data_size;
    void write(ParamSet& p) const;
};

// resize_type: 1 nearest, 2 bilinear, 3 bicubic
struct InterpSpec
{
    std::string type = "Interp";
    IntField resize_type, output_height, output_width, dynamic_target_size, align_corner;
    FloatField height_scale, width_scale;
    void write(ParamSet& p) const;
};

struct PaddingSpec
{
    std::string type = "Padding";
    IntField top, bottom, left, right, front, behind, pad_type; // pad_type: Padding::PAD_*
    FloatField value;
    void write(ParamSet& p) const;
};

struct ReductionSpec
{
    std::string type = "Reduction";
    IntField operation, reduce_all, keepdims, fixbug0; // operation: Reduction::OP_*
    FloatField coeff;
    IntsField axes;
    void write(ParamSet& p) const;
};

struct ClipSpec
{
    std::string type = "Clip";
    FloatField min, max;
    void write(ParamSet& p) const;
};

struct ReLUSpec
{
    std::string type = "ReLU";
    FloatField slope;
    void write(ParamSet& p) const;
};

struct ELUSpec
{
    std::string type = "ELU";
    FloatField alpha;
    void write(ParamSet& p) const;
};

struct SELUSpec
{
    std::string type = "SELU";
    FloatField alpha, lambda;
    void write(ParamSet& p) const;
};

struct GELUSpec
{
    std::string type = "GELU";
    IntField fast_gelu;
    void write(ParamSet& p) const;
};

// HardSigmoid and HardSwish
struct HardSigmoidSpec
{
    std::string type = "HardSigmoid";
    FloatField alpha, beta;
    void write(ParamSet& p) const;
};

struct PReLUSpec
{
    std::string type = "PReLU";
    IntField num_slope;
    void write(ParamSet& p) const;
};

// Power, Exp and Log read (power|base, scale, shift)
struct PowerSpec
{
    std::string type = "Power";
    FloatField power, scale, shift;
    void write(ParamSet& p) const;
};

struct ExpSpec
{
    std::string type = "Exp"; // or "Log"
    FloatField base, scale, shift;
    void write(ParamSet& p) const;
};

struct ThresholdSpec
{
    std::string type = "Threshold";
    FloatField threshold;
    void write(ParamSet& p) const;
};

struct LRNSpec
{
    std::string type = "LRN";
    IntField region_type, local_size;
    FloatField alpha, beta, bias;
    void write(ParamSet& p) const;
};

struct MVNSpec
{
    std::string type = "MVN";
    IntField normalize_variance, across_channels;
    FloatField eps;
    void write(ParamSet& p) const;
};

struct NormalizeSpec
{
    std::string type = "Normalize";
    IntField across_spatial, channel_shared, scale_data_size, across_channel, eps_mode;
    FloatField eps;
    void write(ParamSet& p) const;
};

struct ArgMaxSpec
{
    std::string type = "ArgMax";
    IntField out_max_val, topk;
    void write(ParamSet& p) const;
};

struct ShuffleChannelSpec
{
    std::string type = "ShuffleChannel";
    IntField group, reverse;
    void write(ParamSet& p) const;
};

struct PixelShuffleSpec
{
    std::string type = "PixelShuffle";
    IntField upscale_factor, mode;
    void write(ParamSet& p) const;
};

struct ReorgSpec
{
    std::string type = "Reorg";
    IntField stride, mode;
    void write(ParamSet& p) const;
};

struct TileSpec
{
    std::string type = "Tile";
    IntField axis, tiles;
    IntsField repeats;
    void write(ParamSet& p) const;
};

struct EmbedSpec
{
    std::string type = "Embed";
    IntField num_output, input_dim, bias_term, weight_data_size;
    void write(ParamSet& p) const;
};

struct PriorBoxSpec
{
    std::string type = "PriorBox";
    FloatsField min_sizes, max_sizes, aspect_ratios;
    FloatField variance[4];
    IntField flip, clip, image_width, image_height;
    FloatField step_width, step_height, offset;
    void write(ParamSet& p) const;
};

struct DetectionOutputSpec
{
    std::string type = "DetectionOutput";
    IntField num_class, nms_top_k, keep_top_k;
    FloatField nms_threshold, confidence_threshold;
    void write(ParamSet& p) const;
};

struct DropoutSpec
{
    std::string type = "Dropout";
    FloatField scale;
    void write(ParamSet& p) const;
};

struct SqueezeSpec
{
    std::string type = "Squeeze"; // or "ExpandDims"
    IntField w, h, d, c;
    IntsField axes;
    void write(ParamSet& p) const;
};

// Layers without parameters (Sigmoid, TanH, Swish, Flatten, Split, ...).
struct PlainSpec
{
    std::string type;
    explicit PlainSpec(const std::string& t)
        : type(t)
    {
    }
    void write(ParamSet&) const {}
};

// ---- reading params back (kiteoptimize) ----------------------------------
// The ids readers use are the same enums: include the layer header.

} // namespace convert
} // namespace kite

#endif // KITE_CONVERT_EMIT_H
