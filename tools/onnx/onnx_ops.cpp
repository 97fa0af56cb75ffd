// ONNX node -> kite layers: the table of converted ops and Converter::emit(),
// which converts the activations itself and hands the other families to
// their files (onnx_ops_*.cpp). Shapes are static; each emitter computes the
// ONNX output shape and the kite shape the layer naturally produces, and
// set_out() adds a Reshape where the two disagree.
#include "onnx_ops.h"

#include "binaryop.h"
#include "reduction.h"
#include "unaryop.h"

#include <set>

namespace kite {
namespace convert {
namespace onnx {

namespace {

const std::map<std::string, int>& unary_ops()
{
    typedef UnaryOp U;
    static const std::map<std::string, int> m = {
        {"Abs", U::Operation_ABS}, {"Neg", U::Operation_NEG}, {"Floor", U::Operation_FLOOR},
        {"Ceil", U::Operation_CEIL}, {"Sqrt", U::Operation_SQRT}, {"Exp", U::Operation_EXP},
        {"Log", U::Operation_LOG}, {"Sin", U::Operation_SIN}, {"Cos", U::Operation_COS},
        {"Tan", U::Operation_TAN}, {"Asin", U::Operation_ASIN}, {"Acos", U::Operation_ACOS},
        {"Atan", U::Operation_ATAN}, {"Reciprocal", U::Operation_RECIPROCAL}, {"Round", U::Operation_ROUND}};
    return m;
}

const std::map<std::string, int>& binary_ops()
{
    typedef BinaryOp B;
    static const std::map<std::string, int> m = {
        {"Add", B::Operation_ADD}, {"Sub", B::Operation_SUB}, {"Mul", B::Operation_MUL}, {"Div", B::Operation_DIV},
        {"Max", B::Operation_MAX}, {"Min", B::Operation_MIN}, {"Pow", B::Operation_POW}, {"Sum", B::Operation_ADD}};
    return m;
}

const std::map<std::string, int>& reduce_ops()
{
    typedef Reduction R;
    static const std::map<std::string, int> m = {
        {"ReduceSum", R::OP_SUM}, {"ReduceSumSquare", R::OP_SUMSQ}, {"ReduceMean", R::OP_MEAN},
        {"ReduceMax", R::OP_MAX}, {"ReduceMin", R::OP_MIN}, {"ReduceProd", R::OP_PROD}, {"ReduceL1", R::OP_L1},
        {"ReduceL2", R::OP_L2}, {"ReduceLogSum", R::OP_LOGSUM}, {"ReduceLogSumExp", R::OP_LOGSUMEXP}};
    return m;
}

const std::set<std::string>& simple_ops()
{
    static const std::set<std::string> s = {
        "Conv", "ConvTranspose", "BatchNormalization", "InstanceNormalization", "LayerNormalization", "Relu",
        "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Elu", "Selu", "Softplus", "Mish",
        "Gelu", "Swish", "Clip", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Gemm", "MatMul",
        "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Cast", "Transpose", "Concat",
        "Split", "Slice", "Gather", "Softmax", "LogSoftmax", "Pad", "Resize", "Upsample", "LRN",
        "DepthToSpace", "SpaceToDepth", "Constant", "Shape", "Size", "ConstantOfShape", "Range", "Expand",
        "Equal", "Less", "Greater", "Not", "And", "Or", "Where", "Mod", "Tile", "ScatterND", "ScatterElements", "GatherND",
        "LessOrEqual", "GreaterOrEqual", "Xor", "Sign", "CumSum"};
    return s;
}

} // namespace

bool op_supported(const std::string& t)
{
    return simple_ops().count(t) || unary_ops().count(t) || binary_ops().count(t) || reduce_ops().count(t);
}

std::vector<std::string> supported_ops()
{
    std::set<std::string> all(simple_ops().begin(), simple_ops().end());
    for (const auto* m : {&unary_ops(), &binary_ops(), &reduce_ops()})
        for (const auto& kv : *m)
            all.insert(kv.first);
    return std::vector<std::string>(all.begin(), all.end());
}

void check_batch1(const Converter& cv, const Shape& s)
{
    if (s.empty() || s[0] != 1)
        cv.fail("input shape " + shape_str(s) + ": kite runs batch 1 only");
}

float const_scalar(const Converter& cv, int i, float def)
{
    if (!cv.has_in(i))
        return def;
    const Const& c = cv.cin(i);
    if (c.numel() != 1)
        cv.fail("input " + std::to_string(i) + " must hold one value");
    return (float)c.v[0];
}

bool Converter::emit()
{
    const std::string& op = node_->op_type();
    static const std::set<std::string> reads_wide = {"Reshape", "Transpose", "Gather", "Flatten", "Squeeze", "Unsqueeze",
                                                     "Identity", "Dropout", "Cast"};
    for (int i = 0; i < n_in(); i++)
        if (in_wide(i) && !(i == 0 && reads_wide.count(op)))
            fail("input '" + in_name(i) + "' of shape " + shape_str(in_shape(i)) + " has more than 4 non-unit axes; only "
                 "Reshape, Transpose, Gather and pass-through ops read such tensors");
    auto u = unary_ops().find(op);
    if (u != unary_ops().end())
    {
        int code = u->second;
        emit_same(*this, UnaryOpSpec::op(code));
        return true;
    }
    auto b = binary_ops().find(op);
    if (b != binary_ops().end())
    {
        emit_binary(*this, b->second);
        return true;
    }
    auto r = reduce_ops().find(op);
    if (r != reduce_ops().end())
    {
        emit_reduce(*this, r->second);
        return true;
    }
    if (op == "Conv" || op == "ConvTranspose")
        emit_conv(*this, op == "ConvTranspose");
    else if (op == "BatchNormalization" || op == "InstanceNormalization" || op == "LayerNormalization")
        emit_norms(*this, op);
    else if (op == "Relu")
        emit_same(*this, ReLUSpec());
    else if (op == "LeakyRelu")
    {
        ReLUSpec s;
        s.slope = attr_f("alpha", 0.01f);
        emit_same(*this, s);
    }
    else if (op == "PRelu")
    {
        Shape s = in_shape(0);
        const Const& sl = cin(1);
        int64_t C = s.size() >= 2 ? s[1] : 1;
        if (!(sl.numel() == 1 || (s.size() >= 3 && s[0] == 1 && sl.numel() == (size_t)C && (sl.shape.size() == s.size() - 1 || sl.shape.size() == s.size()))))
            fail("slope of shape " + shape_str(sl.shape) + " is not per-channel for input " + shape_str(s));
        std::vector<float> v = sl.floats();
        PReLUSpec ps;
        ps.num_slope = (int)v.size();
        emit_same(*this, ps, {raw(v)});
    }
    else if (op == "Sigmoid")
        emit_same(*this, PlainSpec("Sigmoid"));
    else if (op == "Tanh")
        emit_same(*this, PlainSpec("TanH"));
    else if (op == "HardSigmoid" || op == "HardSwish")
    {
        HardSigmoidSpec s;
        s.type = op; // HardSwish reads the same (alpha, beta)
        s.alpha = op == "HardSwish" ? 1.f / 6 : attr_f("alpha", 0.2f);
        s.beta = op == "HardSwish" ? 0.5f : attr_f("beta", 0.5f);
        emit_same(*this, s);
    }
    else if (op == "Elu")
    {
        ELUSpec s;
        s.alpha = attr_f("alpha", 1.f);
        emit_same(*this, s);
    }
    else if (op == "Selu")
    {
        SELUSpec s;
        s.alpha = attr_f("alpha", 1.67326319217681884765625f);
        s.lambda = attr_f("gamma", 1.05070102214813232421875f);
        emit_same(*this, s);
    }
    else if (op == "Softplus")
        emit_same(*this, PlainSpec("Softplus"));
    else if (op == "Swish") // opset 24's Swish, or a fused Sigmoid * x (onnx_convert.cpp)
    {
        if (attr_f("alpha", 1.f) != 1.f)
            fail("alpha other than 1 is not converted");
        emit_same(*this, PlainSpec("Swish"));
    }
    else if (op == "Mish")
        emit_same(*this, PlainSpec("Mish"));
    else if (op == "Gelu")
    {
        GELUSpec s;
        if (attr_s("approximate", "none") == "tanh")
            s.fast_gelu = 1;
        emit_same(*this, s);
    }
    else if (op == "Clip")
    {
        ClipSpec s;
        s.min = opset_ >= 11 ? const_scalar(*this, 1, -3.402823466e+38f) : attr_f("min", -3.402823466e+38f);
        s.max = opset_ >= 11 ? const_scalar(*this, 2, 3.402823466e+38f) : attr_f("max", 3.402823466e+38f);
        emit_same(*this, s);
    }
    else if (op == "MaxPool" || op == "AveragePool")
    {
        if (n_out() > 1 && !out_name(1).empty())
            fail("the Indices output is not converted");
        emit_pool(*this, op == "MaxPool" ? PoolingSpec::MAX : PoolingSpec::AVG, false);
    }
    else if (op == "GlobalAveragePool" || op == "GlobalMaxPool")
        emit_pool(*this, op == "GlobalMaxPool" ? PoolingSpec::MAX : PoolingSpec::AVG, true);
    else if (op == "Gemm")
        emit_gemm(*this);
    else if (op == "MatMul")
        emit_matmul(*this);
    else if (op == "Flatten")
    {
        Shape s = in_shape(0);
        int64_t ax = norm_axis(attr_i("axis", 1), s.size());
        if (ax < 0 || ax > (int64_t)s.size())
            fail("axis out of range");
        int64_t p = 1, q = 1;
        for (int64_t i = 0; i < (int64_t)s.size(); i++)
            (i < ax ? p : q) *= s[i];
        set_out(0, {p, q}, blob(0), blob_kshape(0));
    }
    else if (op == "Reshape")
    {
        Shape s = in_shape(0);
        set_out(0, infer_reshape(*this, s, cin(1).ints(), attr_i("allowzero", 0) != 0), blob(0), blob_kshape(0));
    }
    else if (op == "Squeeze" || op == "Unsqueeze")
    {
        Shape s = in_shape(0);
        std::vector<int64_t> axes = opset_ >= 13 ? axes_arg(*this, 1, "axes") : attr_ints("axes");
        Shape o = op == "Squeeze" ? squeeze_shape(*this, s, axes) : unsqueeze_shape(*this, s, axes);
        set_out(0, o, blob(0), blob_kshape(0));
    }
    else if (op == "Identity" || op == "Dropout")
    {
        if (op == "Dropout" && n_out() > 1 && !out_name(1).empty())
            fail("the mask output is not converted");
        set_out(0, in_shape(0), blob(0), blob_kshape(0));
    }
    else if (op == "Cast")
    {
        int to = (int)attr_i("to", 1);
        if (to != 1 && to != 10 && to != 11)
            fail("casting a computed tensor to type " + std::to_string(to) + " is not converted (kite blobs are float)");
        set_out(0, in_shape(0), blob(0), blob_kshape(0));
    }
    else if (op == "Transpose")
        emit_transpose(*this);
    else if (op == "Concat")
        emit_concat(*this);
    else if (op == "Split")
        emit_split(*this);
    else if (op == "Slice")
        emit_slice(*this);
    else if (op == "Gather")
        emit_gather(*this);
    else if (op == "Softmax" || op == "LogSoftmax")
        emit_softmax(*this, op == "LogSoftmax");
    else if (op == "Pad")
        emit_pad(*this);
    else if (op == "Resize" || op == "Upsample")
        emit_resize(*this);
    else if (op == "LRN")
    {
        int64_t size = attr_i("size", 0);
        float a = attr_f("alpha", 1e-4f), be = attr_f("beta", 0.75f), bias = attr_f("bias", 1.f);
        if (in_shape(0).size() != 4)
            fail("only 4-D inputs are converted");
        check_batch1(*this, in_shape(0));
        LRNSpec s;
        s.region_type = 0; // across channels
        s.local_size = (int)size;
        s.alpha = a;
        s.beta = be;
        s.bias = bias;
        emit_same(*this, s);
    }
    else if (op == "Expand")
        emit_expand(*this);
    else if (op == "DepthToSpace" || op == "SpaceToDepth")
    {
        Shape s = in_shape(0);
        int64_t bs = attr_i("blocksize", 0);
        if (s.size() != 4 || s[0] != 1 || bs < 1)
            fail("only 4-D batch-1 inputs with blocksize >= 1 are converted");
        bool d2s = op == "DepthToSpace";
        std::string mode = attr_s("mode", "DCR");
        if (d2s && s[1] % (bs * bs))
            fail("channels not divisible by blocksize^2");
        if (!d2s && (s[2] % bs || s[3] % bs))
            fail("spatial size not divisible by blocksize");
        Shape o = d2s ? Shape{1, s[1] / (bs * bs), s[2] * bs, s[3] * bs} : Shape{1, s[1] * bs * bs, s[2] / bs, s[3] / bs};
        std::string t = top_name(0);
        if (d2s)
        {
            PixelShuffleSpec s;
            s.upscale_factor = (int)bs;
            s.mode = mode == "CRD" ? 0 : 1;
            emit(s, {blob(0)}, {t});
        }
        else
        {
            ReorgSpec s;
            s.stride = (int)bs;
            s.mode = mode == "CRD" ? 0 : 1;
            emit(s, {blob(0)}, {t});
        }
        set_out(0, o, t, kshape(o));
    }
    else
        fail("has no kite equivalent for these inputs (constant inputs only are supported for this op)");
    return true;
}

} // namespace onnx
} // namespace convert
} // namespace kite
