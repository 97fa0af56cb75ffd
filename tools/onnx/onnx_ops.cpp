// ONNX node -> kite layers. Shapes are static; each emitter computes the
// ONNX output shape and the kite shape the layer naturally produces, and
// set_out() adds a Reshape where the two disagree.
#include "onnx_convert.h"

#include "onnx_subset.pb.h"

#include "binaryop.h"
#include "permute.h"
#include "reduction.h"
#include "unaryop.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kite {
namespace convert {
namespace onnx {

// shared with onnx_fold.cpp
Shape broadcast_shape(const Converter& cv, const Shape& a, const Shape& b);
Shape infer_reshape(const Converter& cv, const Shape& in, const std::vector<int64_t>& spec, bool allowzero);
struct SliceRange
{
    std::vector<int64_t> start, end, step;
    Shape out;
};
SliceRange resolve_slice(const Converter& cv, const Shape& in, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes, std::vector<int64_t> steps);
std::vector<int64_t> axes_arg(const Converter& cv, int input_index, const char* attr);
void slice_args(const Converter& cv, std::vector<int64_t>& starts, std::vector<int64_t>& ends, std::vector<int64_t>& axes, std::vector<int64_t>& steps);
Shape unsqueeze_shape(const Converter& cv, const Shape& in, const std::vector<int64_t>& axes);
Shape squeeze_shape(const Converter& cv, const Shape& in, const std::vector<int64_t>& axes);
std::vector<int64_t> transpose_perm(const Converter& cv, size_t rank);

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

Shape with_axis(Shape s, size_t i, int64_t v)
{
    s[i] = v;
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

// --------------------------------------------------------------------------

static Shape bcast(const Converter& cv, const Shape& a, const Shape& b)
{
    return broadcast_shape(cv, a, b);
}

// an operand of an element-wise op: a constant, or a blob with its ONNX shape
struct Operand
{
    Shape shape;
    const Const* c = nullptr;
    std::string name; // for naming the MemoryData of a constant
    std::string blob; // kite blob (shape kshape(shape)) when not constant
};

static Operand operand(Converter& cv, int i)
{
    Operand o;
    o.shape = cv.in_shape(i);
    o.name = cv.in_name(i);
    if (cv.in_const(i))
        o.c = &cv.cin(i);
    else
        o.blob = cv.blob(i);
    return o;
}

// the operand laid out on the given axes of a rank-r frame (its shape
// right-aligned, missing leading axes are 1)
static std::string operand_on(Converter& cv, const Operand& x, size_t r, const std::vector<int>& axes)
{
    Shape padded(r - x.shape.size(), 1);
    padded.insert(padded.end(), x.shape.begin(), x.shape.end());
    Shape k;
    for (int a : axes)
        k.push_back(padded[a]);
    if (k.empty())
        k.push_back(1);
    if (x.c)
        return cv.const_blob(x.name, *x.c, k);
    return cv.reshape(x.blob, Converter::kshape(x.shape), k);
}

// op(a, b) into blob `top`; returns the ONNX shape of the result, whose blob
// has shape kshape(result)
static Shape binary_into(Converter& cv, int op, const Operand& a, const Operand& b, const std::string& top)
{
    Shape o = bcast(cv, a.shape, b.shape);
    for (int side = 0; side < 2; side++)
    {
        const Operand& x = side ? a : b; // the scalar one
        const Operand& y = side ? b : a;
        if (!(x.c && x.c->numel() == 1 && o == y.shape && !y.c))
            continue;
        // the scalar on the left: the reversed op
        static const int rev[] = {BinaryOp::Operation_ADD, BinaryOp::Operation_RSUB, BinaryOp::Operation_MUL,
                                  BinaryOp::Operation_RDIV, BinaryOp::Operation_MAX, BinaryOp::Operation_MIN,
                                  BinaryOp::Operation_RPOW};
        cv.emit(BinaryOpSpec::scalar(side ? rev[op] : op, (float)x.c->v[0]), {y.blob}, {top});
        return o;
    }
    std::vector<int> axes = Converter::kept_axes(o);
    std::string x = operand_on(cv, a, o.size(), axes);
    std::string y = operand_on(cv, b, o.size(), axes);
    cv.emit(BinaryOpSpec::op(op), {x, y}, {top});
    return o;
}

// Add/Sub/Mul/Div/Pow/Max/Min and the variadic Sum/Max/Min as a chain
static void emit_binary(Converter& cv, int op)
{
    if (cv.n_in() < 1)
        cv.fail("needs an input");
    Operand acc = operand(cv, 0);
    if (cv.n_in() == 1 && !acc.c)
    {
        cv.set_out(0, acc.shape, acc.blob, Converter::kshape(acc.shape));
        return;
    }
    for (int i = 1; i < cv.n_in(); i++)
    {
        std::string t = i + 1 == cv.n_in() ? cv.top_name(0) : cv.uniq(cv.out_name(0));
        Shape o = binary_into(cv, op, acc, operand(cv, i), t);
        acc = Operand();
        acc.shape = o;
        acc.blob = t;
    }
    cv.set_out(0, acc.shape, acc.blob, Converter::kshape(acc.shape));
}

// Expand of a computed tensor: a product with ones of the target shape
// Expand(x, shape) read only by element-wise broadcasting ops whose other
// operand already has that shape (F.normalize's x / norm.expand_as(x) in
// Swin V2): those ops broadcast x themselves; the Expand is left out (its
// constant of ones would fix the model to the target's size)
static bool expand_left_to_readers(Converter& cv, const Shape& target)
{
    if (!cv.graph_ || cv.in_const(0) || cv.in_wide(0) || cv.n_out() != 1)
        return false;
    static const std::set<std::string> kBroadcasting = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
    const std::string& out = cv.out_name(0);
    for (const ValueInfoProto& vi : cv.graph_->output())
        if (vi.name() == out)
            return false; // a graph output keeps the expanded shape
    int readers = 0;
    for (const NodeProto& n : cv.graph_->node())
        for (int i = 0; i < n.input_size(); i++)
        {
            if (n.input(i) != out)
                continue;
            if (!kBroadcasting.count(n.op_type()) || n.input_size() != 2)
                return false;
            const std::string& other = n.input(1 - i);
            auto it = cv.shapes_.find(other);
            if (other == out || it == cv.shapes_.end() || it->second != target)
                return false;
            readers++;
        }
    if (!readers)
        return false;
    // numpy broadcasting: x against the target gives the target
    const Shape& x = cv.in_shape(0);
    if (x.size() > target.size())
        return false;
    for (size_t k = 0; k < x.size(); k++)
    {
        const int64_t xd = x[x.size() - 1 - k], td = target[target.size() - 1 - k];
        if (xd != td && xd != 1)
            return false;
    }
    cv.set_out(0, x, cv.blob(0), cv.blob_kshape(0));
    return true;
}

static void emit_expand(Converter& cv)
{
    {
        const std::vector<int64_t> want = cv.cin(1).ints();
        Shape x = cv.in_shape(0), target(std::max(want.size(), x.size()), 1);
        bool ok = true;
        for (size_t k = 0; k < target.size() && ok; k++) // the broadcast of x and the requested shape
        {
            const int64_t a = k < x.size() ? x[x.size() - 1 - k] : 1, b = k < want.size() ? want[want.size() - 1 - k] : 1;
            ok = a == b || a == 1 || b == 1;
            target[target.size() - 1 - k] = std::max(a, b);
        }
        if (ok && expand_left_to_readers(cv, target))
            return;
    }
    Const ones;
    for (int64_t d : cv.cin(1).ints())
    {
        if (d < 1 || d > (1 << 24))
            cv.fail("invalid target dimension " + std::to_string(d));
        ones.shape.push_back(d);
    }
    if (shape_numel(ones.shape) > ((size_t)1 << 24))
        cv.fail("target shape too large");
    ones.v.assign(shape_numel(ones.shape), 1.0);
    Operand b;
    b.shape = ones.shape;
    b.c = &ones;
    b.name = cv.in_name(1);
    std::string t = cv.top_name(0);
    Shape o = binary_into(cv, BinaryOp::Operation_MUL, operand(cv, 0), b, t);
    cv.set_out(0, o, t, Converter::kshape(o));
}

// a layer whose output has its input's shape
template<class Spec>
static void emit_same(Converter& cv, const Spec& spec, const std::vector<kite::convert::Weight>& weights = {})
{
    Shape s = cv.in_shape(0);
    std::string t = cv.top_name(0);
    KLayer& l = cv.emit(spec, {cv.blob(0)}, {t});
    l.weights = weights;
    cv.set_out(0, s, t, Converter::kshape(s));
}

static kite::convert::Weight raw(const std::vector<float>& v)
{
    return kite::convert::Weight(v, false);
}

static kite::convert::Weight tagged(const std::vector<float>& v)
{
    return kite::convert::Weight(v, true);
}

static void check_batch1(const Converter& cv, const Shape& s)
{
    if (s.empty() || s[0] != 1)
        cv.fail("input shape " + shape_str(s) + ": kite runs batch 1 only");
}

// explicit [top, left, bottom, right] for auto_pad SAME_UPPER / SAME_LOWER
static std::vector<int64_t> same_pads(int64_t H, int64_t W, int64_t oh, int64_t ow, int64_t ekh, int64_t ekw, const std::vector<int64_t>& st, bool upper)
{
    int64_t th = std::max<int64_t>(0, (oh - 1) * st[0] + ekh - H), tw = std::max<int64_t>(0, (ow - 1) * st[1] + ekw - W);
    int64_t t = upper ? th / 2 : th - th / 2, l = upper ? tw / 2 : tw - tw / 2;
    return {t, l, th - t, tw - l};
}

static void emit_conv(Converter& cv, bool transpose)
{
    Shape x = cv.in_shape(0);
    check_batch1(cv, x);
    if (x.size() != 4)
        cv.fail("only 2-D convolutions (4-D input) are converted, got " + shape_str(x));
    const Const& W = cv.cin(1);
    if (W.shape.size() != 4)
        cv.fail("weight must be 4-D");
    int64_t group = cv.attr_i("group", 1);
    if (group < 1 || x[1] % group)
        cv.fail("group " + std::to_string(group) + " does not divide the input channels");
    std::vector<int64_t> ks = cv.attr_ints("kernel_shape");
    int64_t kh = W.shape[2], kw = W.shape[3];
    if (!ks.empty() && (ks.size() != 2 || ks[0] != kh || ks[1] != kw))
        cv.fail("kernel_shape disagrees with the weight");
    std::vector<int64_t> st = cv.attr_ints("strides"), dl = cv.attr_ints("dilations"), pads = cv.attr_ints("pads");
    if (st.empty()) st = {1, 1};
    if (dl.empty()) dl = {1, 1};
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (st.size() != 2 || dl.size() != 2 || pads.size() != 4)
        cv.fail("strides/dilations/pads must have 2/2/4 values");
    for (int64_t v : st) if (v < 1) cv.fail("stride must be >= 1");
    for (int64_t v : dl) if (v < 1) cv.fail("dilation must be >= 1");
    for (int64_t v : pads) if (v < 0) cv.fail("negative pads");
    std::string autopad = cv.attr_s("auto_pad", "NOTSET");
    int64_t C = x[1], H = x[2], Wd = x[3];
    int64_t O = transpose ? W.shape[1] * group : W.shape[0];
    if (transpose ? W.shape[0] != C : W.shape[1] * group != C)
        cv.fail("weight " + shape_str(W.shape) + " does not fit input " + shape_str(x));
    int64_t ekh = dl[0] * (kh - 1) + 1, ekw = dl[1] * (kw - 1) + 1;
    int64_t oh, ow;
    if (!transpose)
    {
        if (autopad == "SAME_UPPER" || autopad == "SAME_LOWER")
        {
            oh = (H + st[0] - 1) / st[0];
            ow = (Wd + st[1] - 1) / st[1];
            pads = same_pads(H, Wd, oh, ow, ekh, ekw, st, autopad == "SAME_UPPER");
        }
        else
        {
            if (autopad == "VALID")
                pads = {0, 0, 0, 0};
            oh = (H + pads[0] + pads[2] - ekh) / st[0] + 1;
            ow = (Wd + pads[1] + pads[3] - ekw) / st[1] + 1;
        }
    }
    else
    {
        std::vector<int64_t> op = cv.attr_ints("output_padding");
        if (op.empty()) op = {0, 0};
        if (cv.has_attr("output_shape") || (autopad != "NOTSET" && autopad != "VALID"))
            cv.fail("output_shape / auto_pad SAME are not converted for ConvTranspose");
        if (autopad == "VALID")
            pads = {0, 0, 0, 0};
        oh = (H - 1) * st[0] + ekh + op[0] - pads[0] - pads[2];
        ow = (Wd - 1) * st[1] + ekw + op[1] - pads[1] - pads[3];
        std::string t = cv.top_name(0);
        DeconvolutionSpec s;
        s.type = group == 1 ? "Deconvolution" : "DeconvolutionDepthWise";
        s.num_output = (int)O;
        s.kernel((int)kw, (int)kh).dilation((int)dl[1], (int)dl[0]).stride((int)st[1], (int)st[0]);
        s.pads((int)pads[1], (int)pads[3], (int)pads[0], (int)pads[2]);
        s.output_pad_right = (int)op[1];
        s.output_pad_bottom = (int)op[0];
        s.bias_term = cv.has_in(2) ? 1 : 0;
        s.weight_data_size = (int)W.numel();
        if (group > 1)
            s.group = (int)group;
        KLayer& l = cv.emit(s, {cv.blob(0)}, {t});
        // ONNX [C_in][O/g][k] -> kite [O][C_in/g][k]
        int64_t icg = C / group, ocg = O / group, maxk = kh * kw;
        std::vector<float> w(W.numel());
        for (int64_t g = 0; g < group; g++)
            for (int64_t o = 0; o < ocg; o++)
                for (int64_t i = 0; i < icg; i++)
                    for (int64_t k = 0; k < maxk; k++)
                        w[(((g * ocg + o) * icg) + i) * maxk + k] = (float)W.v[(((g * icg + i) * ocg) + o) * maxk + k];
        l.weights.push_back(tagged(w));
        if (cv.has_in(2))
            l.weights.push_back(raw(cv.cin(2).floats()));
        if (oh < 1 || ow < 1)
            cv.fail("output would be empty");
        cv.set_out(0, {1, O, oh, ow}, t, {O, oh, ow});
        return;
    }
    if (oh < 1 || ow < 1)
        cv.fail("output would be empty for input " + shape_str(x));
    std::string t = cv.top_name(0);
    ConvolutionSpec s;
    s.type = group == 1 ? "Convolution" : "ConvolutionDepthWise";
    s.num_output = (int)O;
    s.kernel((int)kw, (int)kh).dilation((int)dl[1], (int)dl[0]).stride((int)st[1], (int)st[0]);
    s.pads((int)pads[1], (int)pads[3], (int)pads[0], (int)pads[2]);
    s.bias_term = cv.has_in(2) ? 1 : 0;
    s.weight_data_size = (int)W.numel();
    if (group > 1)
        s.group = (int)group;
    KLayer& l = cv.emit(s, {cv.blob(0)}, {t});
    l.weights.push_back(tagged(W.floats()));
    if (cv.has_in(2))
    {
        if (cv.cin(2).numel() != (size_t)O)
            cv.fail("bias size differs from the output channels");
        l.weights.push_back(raw(cv.cin(2).floats()));
    }
    cv.set_out(0, {1, O, oh, ow}, t, {O, oh, ow});
}

static void emit_pool(Converter& cv, int type, bool global)
{
    Shape x = cv.in_shape(0);
    check_batch1(cv, x);
    if (x.size() != 4)
        cv.fail("only 2-D pooling (4-D input) is converted, got " + shape_str(x));
    std::string t = cv.top_name(0);
    PoolingSpec ps;
    ps.pooling_type = type;
    if (global)
    {
        ps.global_pooling = 1;
        cv.emit(ps, {cv.blob(0)}, {t});
        cv.set_out(0, {1, x[1], 1, 1}, t, {x[1]});
        return;
    }
    std::vector<int64_t> ks = cv.attr_ints("kernel_shape"), st = cv.attr_ints("strides"), pads = cv.attr_ints("pads"), dl = cv.attr_ints("dilations");
    if (st.empty()) st = {1, 1};
    if (pads.empty()) pads = {0, 0, 0, 0};
    if (ks.size() != 2 || st.size() != 2 || pads.size() != 4)
        cv.fail("kernel_shape/strides/pads must have 2/2/4 values");
    for (int64_t d : dl)
        if (d != 1)
            cv.fail("dilated pooling is not converted");
    for (int64_t v : ks) if (v < 1) cv.fail("kernel must be >= 1");
    for (int64_t v : st) if (v < 1) cv.fail("stride must be >= 1");
    std::string autopad = cv.attr_s("auto_pad", "NOTSET");
    bool ceil_mode = cv.attr_i("ceil_mode", 0) != 0;
    int64_t H = x[2], W = x[3], oh, ow;
    ps.kernel((int)ks[1], (int)ks[0]).stride((int)st[1], (int)st[0]);
    ps.avgpool_count_include_pad = type == PoolingSpec::AVG ? (int)cv.attr_i("count_include_pad", 0) : 0;
    if (autopad == "SAME_UPPER" || autopad == "SAME_LOWER")
    {
        oh = (H + st[0] - 1) / st[0];
        ow = (W + st[1] - 1) / st[1];
        pads = same_pads(H, W, oh, ow, ks[0], ks[1], st, autopad == "SAME_UPPER");
        autopad = "NOTSET";
    }
    {
        if (autopad == "VALID")
            pads = {0, 0, 0, 0};
        auto outsz = [](int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, bool c) {
            int64_t span = in + p0 + p1 - k;
            int64_t o = (c ? (span + s - 1) / s : span / s) + 1;
            if (c && (o - 1) * s >= in + p0)
                o--; // the last window must start inside the input or its leading pad
            return o;
        };
        oh = outsz(H, ks[0], st[0], pads[0], pads[2], ceil_mode);
        ow = outsz(W, ks[1], st[1], pads[1], pads[3], ceil_mode);
        int64_t fh = outsz(H, ks[0], st[0], pads[0], pads[2], false), fw = outsz(W, ks[1], st[1], pads[1], pads[3], false);
        // kite's "full" mode adds a tail pad up to the ceil size; grow the
        // bottom/right pads instead so the sizes are exactly ONNX's
        int64_t pb = pads[2] + (oh - fh) * st[0], pr = pads[3] + (ow - fw) * st[1];
        if ((oh != fh || ow != fw) && type == PoolingSpec::AVG && cv.attr_i("count_include_pad", 0))
            cv.fail("ceil_mode with count_include_pad is not converted");
        ps.pad_mode = 1; // valid: exactly the pads given
        ps.pads((int)pads[1], (int)pr, (int)pads[0], (int)pb);
    }
    if (oh < 1 || ow < 1)
        cv.fail("output would be empty");
    cv.emit(ps, {cv.blob(0)}, {t});
    cv.set_out(0, {1, x[1], oh, ow}, t, {x[1], oh, ow});
}

// InnerProduct over rows: x [P, K] (any leading shape) times W^T (N x K) + bias
static void emit_fc(Converter& cv, const Shape& x, const std::vector<float>& w, int64_t N, const std::vector<float>& bias, const Shape& out)
{
    int64_t K = x.back();
    int64_t P = (int64_t)(shape_numel(x) / (size_t)std::max<int64_t>(K, 1));
    Shape in2 = {P, K};
    std::string b = cv.reshape(cv.blob(0), Converter::kshape(x), Converter::kshape(in2));
    std::string t = cv.top_name(0);
    InnerProductSpec s;
    s.num_output = (int)N;
    s.bias_term = bias.empty() ? 0 : 1;
    s.weight_data_size = (int)w.size();
    KLayer& l = cv.emit(s, {b}, {t});
    l.weights.push_back(tagged(w));
    if (!bias.empty())
        l.weights.push_back(raw(bias));
    cv.set_out(0, out, t, Converter::kshape({P, N}));
}

static void emit_gemm(Converter& cv)
{
    Shape a = cv.in_shape(0);
    if (a.size() != 2)
        cv.fail("A must be 2-D, got " + shape_str(a));
    if (cv.attr_i("transA", 0))
        cv.fail("transA=1 is not converted");
    const Const& B = cv.cin(1);
    if (B.shape.size() != 2)
        cv.fail("B must be 2-D");
    bool tb = cv.attr_i("transB", 0) != 0;
    int64_t K = tb ? B.shape[1] : B.shape[0], N = tb ? B.shape[0] : B.shape[1];
    if (K != a[1])
        cv.fail("A " + shape_str(a) + " and B " + shape_str(B.shape) + " disagree on K");
    float alpha = cv.attr_f("alpha", 1.f), beta = cv.attr_f("beta", 1.f);
    std::vector<float> w((size_t)(N * K));
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++)
            w[n * K + k] = alpha * (float)(tb ? B.v[n * K + k] : B.v[k * N + n]);
    std::vector<float> bias;
    if (cv.has_in(2))
    {
        const Const& C = cv.cin(2);
        if (C.numel() == 1)
            bias.assign((size_t)N, beta * (float)C.v[0]);
        else if ((size_t)N == C.numel() && C.shape.back() == N)
            for (double v : C.v)
                bias.push_back(beta * (float)v);
        else
            cv.fail("C of shape " + shape_str(C.shape) + " is not a per-column bias");
    }
    emit_fc(cv, a, w, N, bias, {a[0], N});
}

static void emit_matmul(Converter& cv)
{
    Shape a = cv.in_shape(0), b = cv.in_shape(1);
    if (a.size() < 2 || b.size() < 2)
        cv.fail("1-D MatMul operands are not converted");
    if (cv.in_const(1) && b.size() == 2)
    {
        const Const& B = cv.cin(1);
        int64_t K = b[0], N = b[1];
        if (a.back() != K)
            cv.fail("shapes " + shape_str(a) + " and " + shape_str(b) + " disagree on K");
        std::vector<float> w((size_t)(N * K));
        for (int64_t n = 0; n < N; n++)
            for (int64_t k = 0; k < K; k++)
                w[n * K + k] = (float)B.v[k * N + n];
        Shape out = a;
        out.back() = N;
        emit_fc(cv, a, w, N, {}, out);
        return;
    }
    size_t r = std::max(a.size(), b.size());
    Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
    Shape o = bcast(cv, ab, bb);
    o.insert(o.begin(), r - 2 - o.size(), 1);
    if (a[a.size() - 1] != b[b.size() - 2])
        cv.fail("shapes " + shape_str(a) + " and " + shape_str(b) + " disagree on K");
    o.push_back(a[a.size() - 2]);
    o.push_back(b.back());
    // keep the matrix axes even when they are 1
    std::vector<int> axes = Converter::kept_axes(o);
    for (int m : {(int)r - 2, (int)r - 1})
        if (std::find(axes.begin(), axes.end(), m) == axes.end())
            axes.push_back(m);
    std::sort(axes.begin(), axes.end());
    if (axes.size() > 4)
        cv.fail("more than 4 axes");
    // the operands: their own matrix sizes on the last two axes
    Shape ka, kb;
    auto frame = [&](int i, const Shape& s, Shape* k) {
        Shape padded(r - s.size(), 1);
        padded.insert(padded.end(), s.begin(), s.end());
        Shape kk;
        for (int ax : axes)
            kk.push_back(padded[ax]);
        *k = kk;
        if (cv.in_const(i))
            return cv.const_blob(cv.in_name(i), cv.cin(i), kk);
        return cv.reshape(cv.blob(i), Converter::kshape(s), kk);
    };
    std::string x = frame(0, a, &ka), y = frame(1, b, &kb);
    std::string t = cv.top_name(0);
    cv.emit(MatMulSpec(), {x, y}, {t});
    Shape ko;
    for (int ax : axes)
        ko.push_back(o[ax]);
    cv.set_out(0, o, t, ko);
}

// the kite Permute order type that moves axis q[j] of a blob of `dims` axes to position j; -1 if none
static int permute_order(int dims, const std::vector<int>& q)
{
    for (int ty = 0; ty < 24; ty++)
    {
        int pm[4];
        if (!kite::Permute::permutation(dims, ty, pm))
            continue;
        bool same = true;
        for (int i = 0; i < dims; i++)
            same = same && pm[i] == q[i];
        if (same)
            return ty;
    }
    return -1;
}

// A transpose of more than 4 non-unit axes (nu: the input's non-unit axes,
// q: output position -> index into nu). Axes that stay neighbours in the same
// order are merged; when more than 4 groups remain, the permutation is done
// as swaps of neighbouring groups, each a 4-axis Permute of the view
// (outer, X, Y, inner). The result is a wide tensor (more than 4 axes).
static void emit_wide_transpose(Converter& cv, const Shape& s, const std::vector<int>& nu, const std::vector<int>& q, const Shape& o)
{
    // groups: runs of q that are consecutive input axes
    std::vector<std::vector<int> > runs; // in output order, members index nu
    for (size_t j = 0; j < q.size(); j++)
    {
        if (j > 0 && q[j] == q[j - 1] + 1)
            runs.back().push_back(q[j]);
        else
            runs.push_back({q[j]});
    }
    const int G = (int)runs.size();
    std::vector<int> by_start(G); // groups in input order
    for (int g = 0; g < G; g++)
        by_start[g] = g;
    std::sort(by_start.begin(), by_start.end(), [&](int a, int b) { return runs[a].front() < runs[b].front(); });
    std::vector<int64_t> gdim(G, 1);
    for (int g = 0; g < G; g++)
        for (int m : runs[g])
            gdim[g] *= s[nu[m]];
    // cur: the groups in the blob's current order; target position of group g is g
    std::vector<int> cur = by_start;
    std::string b = cv.blob(0);
    Shape bk = cv.blob_kshape(0);
    auto current_dims = [&](const std::vector<int>& order) {
        Shape d;
        for (int g : order)
            d.push_back(gdim[g]);
        return d;
    };
    if (G <= 4)
    {
        Shape dims = current_dims(cur);
        std::vector<int> gq;
        for (int g = 0; g < G; g++)
            gq.push_back((int)(std::find(cur.begin(), cur.end(), g) - cur.begin()));
        int order = permute_order(G, gq);
        if (order < 0)
            cv.fail("no kite Permute order matches");
        std::string v = cv.reshape(b, bk, dims);
        std::string t = cv.uniq(cv.out_name(0));
        cv.emit(PermuteSpec::order(order), {v}, {t});
        cv.set_out(0, o, t, Shape(gdim.begin(), gdim.end())); // group g sits at output position g
        return;
    }
    for (int guard = 0; guard < G * G; guard++)
    {
        int k = -1;
        for (int i = 0; i + 1 < G && k < 0; i++)
            if (cur[i] > cur[i + 1])
                k = i;
        if (k < 0)
            break;
        int64_t outer = 1, inner = 1;
        for (int i = 0; i < k; i++)
            outer *= gdim[cur[i]];
        for (int i = k + 2; i < G; i++)
            inner *= gdim[cur[i]];
        const int64_t X = gdim[cur[k]], Y = gdim[cur[k + 1]];
        Shape view;
        if (outer > 1)
            view.push_back(outer);
        const int xi = (int)view.size();
        view.push_back(X);
        view.push_back(Y);
        if (inner > 1)
            view.push_back(inner);
        std::vector<int> vq;
        for (int i = 0; i < (int)view.size(); i++)
            vq.push_back(i == xi ? xi + 1 : i == xi + 1 ? xi : i);
        int order = permute_order((int)view.size(), vq);
        if (order < 0)
            cv.fail("no kite Permute order swaps two axes of " + shape_str(view));
        std::string v = cv.reshape(b, bk, view);
        std::string t = cv.uniq(cv.out_name(0));
        cv.emit(PermuteSpec::order(order), {v}, {t});
        std::swap(cur[k], cur[k + 1]);
        std::swap(view[xi], view[xi + 1]);
        b = t;
        bk = view;
    }
    cv.set_out(0, o, b, bk);
}

static void emit_transpose(Converter& cv)
{
    Shape s = cv.in_shape(0);
    std::vector<int64_t> perm = transpose_perm(cv, s.size());
    Shape o;
    for (int64_t p : perm)
        o.push_back(s[p]);
    std::vector<int> nu;
    for (size_t i = 0; i < s.size(); i++)
        if (s[i] != 1)
            nu.push_back((int)i);
    std::vector<int> q;
    for (int64_t p : perm)
        if (s[p] != 1)
            q.push_back((int)(std::find(nu.begin(), nu.end(), (int)p) - nu.begin()));
    bool ident = true;
    for (size_t i = 0; i < q.size(); i++)
        ident = ident && q[i] == (int)i;
    if (ident)
    {
        cv.set_out(0, o, cv.blob(0), cv.blob_kshape(0));
        return;
    }
    if (nu.size() > 4)
    {
        emit_wide_transpose(cv, s, nu, q, o);
        return;
    }
    Shape sq, ko;
    for (int i : nu)
        sq.push_back(s[i]);
    for (int i : q)
        ko.push_back(sq[i]);
    const int order = permute_order((int)nu.size(), q);
    if (order < 0)
        cv.fail("no kite Permute order matches");
    std::string b = cv.reshape(cv.blob(0), Converter::kshape(s), sq);
    std::string t = cv.top_name(0);
    cv.emit(PermuteSpec::order(order), {b}, {t});
    cv.set_out(0, o, t, ko);
}

static void emit_concat(Converter& cv)
{
    Shape s0 = cv.in_shape(0);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), s0.size());
    if (axis < 0 || axis >= (int64_t)s0.size())
        cv.fail("axis out of range");
    Shape o = s0;
    o[axis] = 0;
    for (int i = 0; i < cv.n_in(); i++)
    {
        Shape si = cv.in_shape(i);
        if (si.size() != s0.size())
            cv.fail("inputs differ in rank");
        for (size_t k = 0; k < si.size(); k++)
            if ((int64_t)k != axis && si[k] != s0[k])
                cv.fail("inputs " + shape_str(s0) + " and " + shape_str(si) + " differ off the axis");
        o[axis] += si[axis];
    }
    std::vector<int> axes = Converter::kept_axes(o);
    int ka = (int)(std::find(axes.begin(), axes.end(), (int)axis) - axes.begin());
    if (ka == (int)axes.size())
        cv.fail("concatenation along a dropped unit axis");
    std::vector<std::string> bs;
    for (int i = 0; i < cv.n_in(); i++)
        if (cv.in_shape(i)[axis] > 0)
            bs.push_back(operand_on(cv, operand(cv, i), o.size(), axes));
    std::string t = cv.top_name(0);
    cv.emit(ConcatSpec::on(ka), bs, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
}

static void emit_split(Converter& cv)
{
    Shape s = cv.in_shape(0);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    std::vector<int64_t> sizes = cv.has_in(1) ? cv.cin(1).ints() : cv.attr_ints("split");
    int n = cv.n_out();
    if (sizes.empty())
    {
        int64_t each = (s[axis] + n - 1) / n;
        for (int i = 0; i < n; i++)
            sizes.push_back(std::min(each, s[axis] - each * i));
    }
    int64_t total = 0;
    for (int64_t v : sizes)
    {
        if (v < 0)
            cv.fail("negative split size");
        if (v > s[axis] - total) // also keeps the sum from overflowing
            cv.fail("split sizes exceed axis " + std::to_string(axis) + " of " + shape_str(s));
        total += v;
    }
    for (int64_t v : sizes)
        if (v == 0)
            cv.fail("empty split outputs are not converted");
    if ((int)sizes.size() != n || total != s[axis])
        cv.fail("split sizes do not cover axis " + std::to_string(axis) + " of " + shape_str(s));
    int ka = cv.kaxis(s, axis);
    if (ka < 0)
        cv.fail("split along a dropped unit axis");
    std::vector<std::string> tops;
    for (int i = 0; i < n; i++)
        tops.push_back(cv.uniq(cv.out_name(i)));
    convert::SliceSpec sl;
    sl.slices = std::vector<int>(sizes.begin(), sizes.end());
    sl.axis = ka;
    cv.emit(sl, {cv.blob(0)}, tops);
    for (int i = 0; i < n; i++)
    {
        Shape os = with_axis(s, axis, sizes[i]);
        Shape k = Converter::kshape(s);
        k[ka] = sizes[i];
        cv.set_out(i, os, tops[i], k);
    }
}

static void emit_crop(Converter& cv, const Shape& s, const std::vector<int64_t>& start, const std::vector<int64_t>& end, const Shape& o)
{
    // start/end per ONNX axis (full rank), step 1
    std::vector<int> st, en, ax;
    Shape k = Converter::kshape(s);
    for (size_t a = 0; a < s.size(); a++)
    {
        if (start[a] == 0 && end[a] == s[a])
            continue;
        int ka = cv.kaxis(s, (int64_t)a);
        if (ka < 0)
            cv.fail("slices a dropped unit axis to nothing");
        st.push_back((int)start[a]);
        en.push_back((int)end[a]);
        ax.push_back(ka);
        k[ka] = end[a] - start[a];
    }
    if (ax.empty())
    {
        cv.set_out(0, o, cv.blob(0), Converter::kshape(s));
        return;
    }
    std::string t = cv.top_name(0);
    CropSpec c;
    c.starts = st;
    c.ends = en;
    c.axes = ax;
    cv.emit(c, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, k);
}

// the view (outer, mid..., inner) of a tensor of shape s around axis a (the
// axis split into `mid`; unit outer/inner left out); *at: mid's first position
static Shape axis_view(const Shape& s, size_t a, const Shape& mid, int* at)
{
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < a; i++)
        outer *= s[i];
    for (size_t i = a + 1; i < s.size(); i++)
        inner *= s[i];
    Shape view;
    if (outer > 1)
        view.push_back(outer);
    *at = (int)view.size();
    view.insert(view.end(), mid.begin(), mid.end());
    if (inner > 1)
        view.push_back(inner);
    return view;
}

// x[:, :H, :W, :] with the ends read from the shape of another tensor T of
// the same rank (Swin crops its padded map back to the block's input): the
// ends evaluated again with T's axes one larger each follow T on exactly the
// sliced axes, starts are 0, steps 1, and the other axes equal T's. Emits a
// Crop to the reference T (its size at run time) and returns true.
static bool emit_slice_to_reference(Converter& cv, const Shape& s, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                                    const std::vector<int64_t>& axes, const std::vector<int64_t>& steps)
{
    if (cv.n_in() < 3 || cv.in_wide(0) || cv.opset_ < 10)
        return false;
    Const e0;
    std::set<std::string> leaves;
    if (!cv.reevaluate(cv.in_name(2), {}, e0, &leaves) || leaves.empty() || e0.ints() != ends)
        return false;
    const size_t r = s.size();
    std::vector<int> sliced(r, -1); // ONNX axis -> entry of ends
    if (starts.size() != ends.size() || (!axes.empty() && axes.size() != ends.size()))
        return false;
    for (size_t k = 0; k < ends.size(); k++)
    {
        const int64_t a = Converter::norm_axis(axes.empty() ? (int64_t)k : axes[k], r);
        if (a < 0 || a >= (int64_t)r || sliced[a] >= 0 || starts[k] != 0 || (k < steps.size() && steps[k] != 1))
            return false;
        sliced[a] = (int)k;
    }
    for (const std::string& t : leaves)
    {
        auto it = cv.shapes_.find(t);
        auto bt = cv.blob_.find(t);
        if (it == cv.shapes_.end() || bt == cv.blob_.end() || cv.is_const(t) || it->second.size() != r || cv.wide_.count(t))
            continue;
        const Shape& ts = it->second;
        bool fits = Converter::kshape(ts).size() == Converter::kshape(s).size();
        for (size_t a = 0; a < r && fits; a++)
            fits = sliced[a] >= 0 ? ends[sliced[a]] == ts[a] && ts[a] <= s[a] : ts[a] == s[a];
        for (size_t a = 0; a < r && fits; a++)
        {
            Shape t2 = ts;
            t2[a] += 1;
            Const e;
            if (!cv.reevaluate(cv.in_name(2), {{t, t2}}, e))
                return false;
            std::vector<int64_t> v = e.ints();
            if (v.size() != ends.size())
                return false;
            for (size_t k = 0; k < v.size() && fits; k++)
                fits = v[k] == ends[k] + (sliced[a] == (int)k ? 1 : 0);
        }
        if (!fits)
            continue;
        Shape o = ts;
        const std::string top = cv.top_name(0);
        cv.emit(CropSpec(), {cv.blob(0), bt->second}, {top});
        cv.set_out(0, o, top, Converter::kshape(o));
        return true;
    }
    return false;
}

static void emit_slice(Converter& cv)
{
    Shape s = cv.in_shape(0);
    std::vector<int64_t> starts, ends, axes, steps;
    slice_args(cv, starts, ends, axes, steps);
    if (emit_slice_to_reference(cv, s, starts, ends, axes, steps))
        return;
    SliceRange sp = resolve_slice(cv, s, starts, ends, axes, steps);
    for (int64_t d : sp.out)
        if (d == 0)
            cv.fail("the slice is empty");
    bool strided = false;
    for (size_t a = 0; a < s.size(); a++)
        if (sp.step[a] != 1 && sp.out[a] > 1)
            strided = true;
    if (strided)
    {
        // x[..., start::step, ...] (Swin's patch merging): per sliced axis, the
        // view (outer, dim / step, step, inner) cropped on both middle axes
        std::string b = cv.blob(0);
        Shape bk = cv.blob_kshape(0), cur = s;
        for (size_t a = 0; a < s.size(); a++)
        {
            const int64_t st = sp.step[a] > 0 && sp.out[a] > 1 ? sp.step[a] : 1, n = sp.out[a], dim = cur[a];
            if (n == dim && st == 1)
                continue;
            if (sp.step[a] < 0 && n > 1)
                cv.fail("negative steps are not converted");
            if (dim % st != 0)
                cv.fail("a step of " + std::to_string(st) + " over an axis of " + std::to_string(dim) + " is not converted (not a divisor)");
            int km;
            Shape view = axis_view(cur, a, st > 1 ? Shape{dim / st, st} : Shape{dim}, &km);
            std::string v = cv.reshape(b, bk, view);
            CropSpec c;
            std::vector<int> cs{(int)(sp.start[a] / st)}, ce{(int)(sp.start[a] / st + n)}, ca{km};
            if (st > 1)
            {
                cs.push_back((int)(sp.start[a] % st));
                ce.push_back((int)(sp.start[a] % st + 1));
                ca.push_back(km + 1);
            }
            c.starts = cs;
            c.ends = ce;
            c.axes = ca;
            std::string t = cv.uniq(cv.out_name(0));
            cv.emit(c, {v}, {t});
            view[km] = n;
            if (st > 1)
                view[km + 1] = 1;
            b = t;
            bk = view;
            cur[a] = n;
        }
        cv.set_out(0, sp.out, b, bk);
        return;
    }
    std::vector<int64_t> en(s.size());
    for (size_t a = 0; a < s.size(); a++)
        en[a] = sp.start[a] + sp.out[a];
    emit_crop(cv, s, sp.start, en, sp.out);
}

static void emit_gather(Converter& cv)
{
    Shape s = cv.in_shape(0);
    const Const& idx = cv.cin(1);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", 0), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    std::vector<int64_t> ix = idx.ints();
    if (ix.empty())
        cv.fail("empty indices are not converted");
    for (int64_t& v : ix)
    {
        if (v < 0) v += s[axis];
        if (v < 0 || v >= s[axis])
            cv.fail("index out of range");
    }
    for (size_t i = 1; i < ix.size(); i++)
        if (ix[i] != ix[i - 1] + 1)
            cv.fail("only contiguous increasing indices are converted");
    Shape o(s.begin(), s.begin() + axis);
    o.insert(o.end(), idx.shape.begin(), idx.shape.end());
    o.insert(o.end(), s.begin() + axis + 1, s.end());
    if (cv.in_wide(0))
    {
        // a wide input: the view (outer, axis, inner) of its elements, cropped on the axis
        int ka;
        Shape view = axis_view(s, (size_t)axis, {s[axis]}, &ka);
        std::string v = cv.reshape(cv.blob(0), cv.blob_kshape(0), view);
        std::string t = cv.uniq(cv.out_name(0));
        CropSpec c;
        c.starts = std::vector<int>{(int)ix.front()};
        c.ends = std::vector<int>{(int)ix.back() + 1};
        c.axes = std::vector<int>{ka};
        cv.emit(c, {v}, {t});
        view[ka] = (int64_t)ix.size();
        cv.set_out(0, o, t, view);
        return;
    }
    std::vector<int64_t> st(s.size(), 0), en(s.begin(), s.end());
    st[axis] = ix.front();
    en[axis] = ix.back() + 1;
    emit_crop(cv, s, st, en, o);
}

static void emit_softmax(Converter& cv, bool log)
{
    Shape s = cv.in_shape(0);
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", cv.opset_ >= 13 ? -1 : 1), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    std::string b = cv.blob(0);
    Shape work = s;
    int64_t ax = axis;
    if (cv.opset_ < 13)
    {
        int64_t p = 1, q = 1;
        for (int64_t i = 0; i < (int64_t)s.size(); i++)
            (i < axis ? p : q) *= s[i];
        work = {p, q};
        ax = 1;
        b = cv.reshape(b, Converter::kshape(s), Converter::kshape(work));
    }
    int ka = cv.kaxis(work, ax);
    std::string t = log ? cv.uniq(cv.out_name(0)) : cv.top_name(0);
    if (ka < 0)
        cv.fail("softmax over a dropped unit axis");
    SoftmaxSpec sm;
    sm.axis = ka;
    sm.fixbug0 = 1;
    cv.emit(sm, {b}, {t});
    if (log)
    {
        std::string t2 = cv.top_name(0);
        cv.emit(UnaryOpSpec::op(UnaryOp::Operation_LOG), {t}, {t2});
        t = t2;
    }
    cv.set_out(0, s, t, Converter::kshape(work));
}

static void emit_reduce(Converter& cv, int op)
{
    Shape s = cv.in_shape(0);
    bool keep = cv.attr_i("keepdims", 1) != 0;
    std::vector<int64_t> axes;
    bool axes_input = cv.opset_ >= 18 || (cv.node_->op_type() == "ReduceSum" && cv.opset_ >= 13);
    axes = axes_input ? axes_arg(cv, 1, "axes") : cv.attr_ints("axes");
    if (axes.empty() && cv.attr_i("noop_with_empty_axes", 0))
    {
        cv.set_out(0, s, cv.blob(0), Converter::kshape(s));
        return;
    }
    std::vector<bool> red(s.size(), axes.empty());
    for (int64_t a : axes)
    {
        int64_t x = Converter::norm_axis(a, s.size());
        if (x < 0 || x >= (int64_t)s.size())
            cv.fail("axis out of range");
        red[x] = true;
    }
    Shape o;
    for (size_t i = 0; i < s.size(); i++)
        if (!red[i])
            o.push_back(s[i]);
        else if (keep)
            o.push_back(1);
    std::vector<int> kept = Converter::kept_axes(s);
    Shape k = Converter::kshape(s), ko;
    std::vector<int> kaxes;
    for (size_t i = 0; i < kept.size(); i++)
        if (red[kept[i]])
            kaxes.push_back((int)i);
    for (size_t i = 0; i < k.size(); i++)
    {
        bool r = std::find(kaxes.begin(), kaxes.end(), (int)i) != kaxes.end();
        if (!r)
            ko.push_back(k[i]);
        else if (keep)
            ko.push_back(1);
    }
    if (ko.empty())
        ko.push_back(1);
    if (kaxes.empty())
    {
        if (op == Reduction::OP_SUM || op == Reduction::OP_MEAN || op == Reduction::OP_MAX || op == Reduction::OP_MIN
            || op == Reduction::OP_PROD)
        {
            cv.set_out(0, o, cv.blob(0), k);
            return;
        }
        cv.fail("reduces only dropped unit axes");
    }
    std::string t = cv.top_name(0);
    ReductionSpec rs;
    rs.operation = op;
    bool all = kaxes.size() == k.size();
    rs.reduce_all = all ? 1 : 0;
    rs.coeff = 1.f;
    if (!all)
        rs.axes = kaxes;
    rs.keepdims = keep ? 1 : 0;
    rs.fixbug0 = 1;
    cv.emit(rs, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, ko);
}

static std::vector<float> per_channel(const Converter& cv, int i, int64_t C, float def)
{
    if (!cv.has_in(i))
        return std::vector<float>((size_t)C, def);
    const Const& c = cv.cin(i);
    if (c.numel() != (size_t)C)
        cv.fail("input " + std::to_string(i) + " has " + std::to_string(c.numel()) + " values for " + std::to_string(C) + " channels");
    return c.floats();
}

static void emit_norms(Converter& cv, const std::string& op)
{
    Shape s = cv.in_shape(0);
    if (op == "BatchNormalization")
    {
        if (s.size() < 2 || s[0] != 1 || s.size() > 4)
            cv.fail("input " + shape_str(s) + " is not converted (batch 1, rank 2..4)");
        int64_t C = s[1];
        std::vector<float> sc = per_channel(cv, 1, C, 1), b = per_channel(cv, 2, C, 0), m = per_channel(cv, 3, C, 0), v = per_channel(cv, 4, C, 1);
        float eps = cv.attr_f("epsilon", 1e-5f);
        BatchNormSpec bn;
        bn.channels = (int)C;
        bn.eps = eps;
        emit_same(cv, bn, {raw(sc), raw(m), raw(v), raw(b)});
        return;
    }
    if (op == "InstanceNormalization")
    {
        if (s.size() != 4 || s[0] != 1)
            cv.fail("input " + shape_str(s) + " is not converted (batch 1, rank 4)");
        int64_t C = s[1];
        std::vector<float> sc = per_channel(cv, 1, C, 1), b = per_channel(cv, 2, C, 0);
        float eps = cv.attr_f("epsilon", 1e-5f);
        InstanceNormSpec in;
        in.channels = (int)C;
        in.eps = eps;
        in.affine = 1;
        emit_same(cv, in, {raw(sc), raw(b)});
        return;
    }
    // LayerNormalization over the axes from `axis` on: rows of Q values
    int64_t axis = Converter::norm_axis(cv.attr_i("axis", -1), s.size());
    if (axis < 0 || axis >= (int64_t)s.size())
        cv.fail("axis out of range");
    int64_t P = 1, Q = 1;
    for (int64_t i = 0; i < (int64_t)s.size(); i++)
        (i < axis ? P : Q) *= s[i];
    std::vector<float> sc = per_channel(cv, 1, Q, 1), b = per_channel(cv, 2, Q, 0);
    float eps = cv.attr_f("epsilon", 1e-5f);
    if (cv.n_out() > 1 && !cv.out_name(1).empty())
        cv.fail("Mean/InvStdDev outputs are not converted");
    Shape rows = {P, Q};
    std::string x = cv.reshape(cv.blob(0), Converter::kshape(s), Converter::kshape(rows));
    std::string t = cv.top_name(0);
    LayerNormSpec ln;
    ln.affine_size = (int)Q;
    ln.eps = eps;
    ln.affine = 1;
    KLayer& l = cv.emit(ln, {x}, {t});
    l.weights = {raw(sc), raw(b)};
    cv.set_out(0, s, t, Converter::kshape(rows));
}

static float const_scalar(const Converter& cv, int i, float def)
{
    if (!cv.has_in(i))
        return def;
    const Const& c = cv.cin(i);
    if (c.numel() != 1)
        cv.fail("input " + std::to_string(i) + " must hold one value");
    return (float)c.v[0];
}

// Pads computed from the input's own shape as (m - x % m) % m at the end of
// an axis (Swin pads its feature map to whole windows): that multiple m per
// axis (1: the pad does not follow the input), found by evaluating the pads
// again at sizes x + 1, x + 2, ... past two sizes without a pad (at most
// x + 2 * kMaxMultiple). false if a pad follows the input otherwise.
static const int kMaxMultiple = 64;

static bool pad_multiples(const Converter& cv, const Shape& s, const std::vector<int64_t>& pads, std::vector<int64_t>& mult)
{
    const size_t r = s.size();
    mult.assign(r, 1);
    for (size_t a = 1; a < r; a++)
    {
        std::vector<int64_t> end(1, pads[a + r]);
        int zero = end[0] == 0 ? 0 : -1, period = 0; // the last size with no pad; the distance between two
        for (int d = 1; d <= 2 * kMaxMultiple && (!period || d <= zero + 2); d++)
        {
            Shape s2 = s;
            s2[a] += d;
            Const c;
            if (!cv.reevaluate(cv.in_name(1), {{cv.in_name(0), s2}}, c))
                return d == 1 && a == 1; // not computed from shapes: constant pads
            std::vector<int64_t> p2 = c.ints();
            if (p2.size() != pads.size())
                return false;
            for (size_t k = 0; k < p2.size(); k++)
                if (k != a + r && p2[k] != pads[k])
                    return false;
            end.push_back(p2[a + r]);
            if (d == 1 && end[1] == end[0])
                break; // this pad does not follow the axis
            if (end.back() == 0)
            {
                if (zero >= 0 && !period)
                    period = d - zero;
                zero = d;
            }
        }
        if (end.size() == 2)
            continue;
        int64_t found = 0;
        for (int64_t m = 2; m <= kMaxMultiple && !found; m++)
        {
            bool fits = true;
            for (size_t d = 0; d < end.size() && fits; d++)
                fits = end[d] == (m - (s[a] + (int64_t)d) % m) % m;
            if (fits)
                found = m;
        }
        if (!found)
            return false;
        mult[a] = found;
    }
    return true;
}

// A Pad to whole multiples of m (pad_multiples) on a batch-1 tensor of
// rank 4 whose last axis does not follow: padded by m - 1, then cropped to
// the reference [ceil(h / m) * m, ceil(w / m) * m, c] built from the input's
// shape at run time (Pooling with kernel and stride m over it padded by m - 1, Interp
// nearest by m, broadcast against one pixel's channels). Returns false (and
// emits nothing) where that does not apply.
static bool emit_pad_to_multiple(Converter& cv, const Shape& s, const std::vector<int64_t>& pads, float value, const Shape& o)
{
    std::vector<int64_t> mult;
    const size_t r = s.size();
    if (r != 4 || s[0] != 1 || !pad_multiples(cv, s, pads, mult) || (mult[1] == 1 && mult[2] == 1) || mult[3] != 1)
        return false;
    for (size_t k = 0; k < 2 * r; k++)
        if (k != 5 && k != 6 && pads[k] != 0)
            return false;
    const Shape ks = cv.blob_kshape(0);
    if (ks != Shape({s[1], s[2], s[3]}))
        return false;
    const int mc = (int)mult[1], mh = (int)mult[2];
    const std::string x = cv.blob(0), base = cv.out_name(0);
    // padded by m - 1 at the end of both axes
    PaddingSpec pd;
    pd.top = 0;
    pd.bottom = mh - 1;
    pd.left = 0;
    pd.right = 0;
    pd.front = 0;
    pd.behind = mc - 1;
    pd.pad_type = Padding::PAD_CONSTANT;
    pd.value = value;
    const std::string padded = cv.uniq(base + "_padmax");
    cv.emit(pd, {x}, {padded});
    // the reference [ceil(h / mc) * mc, ceil(w / mh) * mh, c]
    CropSpec one_ch;
    one_ch.starts = std::vector<int>{0};
    one_ch.ends = std::vector<int>{1};
    one_ch.axes = std::vector<int>{2};
    const std::string plane = cv.uniq(base + "_plane");
    cv.emit(one_ch, {x}, {plane}); // [h, w, 1]
    const std::string chw = cv.uniq(base + "_plane_t");
    cv.emit(PermuteSpec::order(4), {plane}, {chw}); // [1, h, w]
    PoolingSpec pool;
    pool.pooling_type = PoolingSpec::MAX;
    // valid mode on the input padded by m - 1: ceil(n / m) cells (full
    // mode would add a tail pad where the kernel is larger than the input)
    pool.kernel(mh, mc).stride(mh, mc).pads(0, mh - 1, 0, mc - 1);
    pool.pad_mode = 1;
    const std::string cells = cv.uniq(base + "_cells");
    cv.emit(pool, {chw}, {cells}); // [1, ceil(h / mc), ceil(w / mh)]
    InterpSpec up;
    up.resize_type = 1; // nearest
    up.height_scale = (float)mc;
    up.width_scale = (float)mh;
    const std::string grid = cv.uniq(base + "_grid");
    cv.emit(up, {cells}, {grid}); // [1, H, W]
    const std::string grid_t = cv.uniq(base + "_grid_t");
    cv.emit(PermuteSpec::order(3), {grid}, {grid_t}); // [H, W, 1]
    CropSpec pixel;
    pixel.starts = std::vector<int>{0, 0};
    pixel.ends = std::vector<int>{1, 1};
    pixel.axes = std::vector<int>{0, 1};
    const std::string px = cv.uniq(base + "_pixel");
    cv.emit(pixel, {x}, {px}); // [1, 1, c]
    const std::string ref = cv.uniq(base + "_ref");
    cv.emit(BinaryOpSpec::op(BinaryOp::Operation_ADD), {grid_t, px}, {ref}); // [H, W, c]
    const std::string t = cv.top_name(0);
    cv.emit(CropSpec(), {padded, ref}, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
    return true;
}

static void emit_pad(Converter& cv)
{
    Shape s = cv.in_shape(0);
    std::vector<int64_t> pads = cv.has_in(1) ? cv.cin(1).ints() : cv.attr_ints("pads");
    float value = cv.has_in(2) ? const_scalar(cv, 2, 0.f) : cv.attr_f("value", 0.f);
    if (cv.has_in(3))
        cv.fail("the axes input is not converted");
    std::string mode = cv.attr_s("mode", "constant");
    size_t r = s.size();
    if (pads.size() != 2 * r || r != 4 || s[0] != 1)
        cv.fail("only 4-D batch-1 padding is converted, got " + shape_str(s));
    for (int64_t p : pads)
        if (p < 0)
            cv.fail("negative pads (cropping) are not converted");
    if (pads[0] || pads[4])
        cv.fail("padding the batch axis is not converted");
    int type = mode == "constant" ? Padding::PAD_CONSTANT : mode == "edge" ? Padding::PAD_REPLICATE : mode == "reflect" ? Padding::PAD_REFLECT : -1;
    if (type < 0)
        cv.fail("mode '" + mode + "' is not converted");
    Shape o(r);
    for (size_t i = 0; i < r; i++)
        o[i] = s[i] + pads[i] + pads[i + r];
    if (type == Padding::PAD_CONSTANT && cv.has_in(1) && emit_pad_to_multiple(cv, s, pads, value, o))
        return;
    std::string t = cv.top_name(0);
    PaddingSpec pd;
    pd.top = (int)pads[2];
    pd.bottom = (int)pads[6];
    pd.left = (int)pads[3];
    pd.right = (int)pads[7];
    pd.pad_type = type;
    pd.value = value;
    pd.front = (int)pads[1];
    pd.behind = (int)pads[5];
    cv.emit(pd, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
}

static void emit_resize(Converter& cv)
{
    Shape s = cv.in_shape(0);
    if (s.size() != 4 || s[0] != 1)
        cv.fail("only 4-D batch-1 inputs are converted");
    std::string mode = cv.attr_s("mode", "nearest");
    std::string ctm = cv.attr_s("coordinate_transformation_mode", "half_pixel");
    std::vector<float> scales;
    Shape o = s;
    bool upsample = cv.node_->op_type() == "Upsample";
    if (upsample)
    {
        scales = cv.has_in(1) ? cv.cin(1).floats() : cv.attr_floats("scales");
        ctm = "asymmetric";
    }
    else
    {
        if (cv.has_in(3))
        {
            std::vector<int64_t> sz = cv.cin(3).ints();
            if (sz.size() != 4)
                cv.fail("sizes must have 4 values");
            o = Shape(sz.begin(), sz.end());
        }
        else if (cv.has_in(2))
            scales = cv.cin(2).floats();
        else
            cv.fail("neither scales nor sizes given");
        if (cv.has_attr("axes") || cv.attr_i("antialias", 0))
            cv.fail("axes / antialias are not converted");
    }
    if (!scales.empty())
    {
        if (scales.size() != 4)
            cv.fail("scales must have 4 values");
        for (int i = 0; i < 4; i++)
        {
            o[i] = (int64_t)std::floor(s[i] * scales[i]);
            // kite maps coordinates by the size ratio; ONNX by the scale
            if (std::fabs(s[i] * scales[i] - (double)o[i]) > 1e-4)
                cv.fail("scale " + std::to_string(scales[i]) + " does not give an integral size; kite maps coordinates by the size ratio");
        }
    }
    if (o[0] != 1 || o[1] != s[1])
        cv.fail("resizing the batch or channel axis is not converted");
    int type, align = 0;
    if (mode == "nearest")
    {
        std::string nm = cv.attr_s("nearest_mode", "round_prefer_floor");
        type = 1;
        if (ctm != "asymmetric" || (nm != "floor" && !(nm == "round_prefer_floor" && !scales.empty() && scales[2] >= 1 && scales[3] >= 1 && scales[2] == std::floor(scales[2]) && scales[3] == std::floor(scales[3]))))
            cv.fail("nearest resize is converted for asymmetric coordinates with floor rounding (or integer upscales) only");
    }
    else if (mode == "linear" || mode == "bilinear")
    {
        type = 2;
        if (ctm == "align_corners")
        {
            align = 1;
            if (o[2] < 2 || o[3] < 2)
                cv.fail("align_corners to an output of size 1 is not converted");
        }
        else if (!(ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && o[2] > 1 && o[3] > 1)))
            cv.fail("linear resize with coordinate_transformation_mode '" + ctm + "' is not converted");
    }
    else
        cv.fail("mode '" + mode + "' is not converted");
    std::string t = cv.top_name(0);
    InterpSpec ip;
    ip.resize_type = type;
    ip.output_height = (int)o[2];
    ip.output_width = (int)o[3];
    ip.align_corner = align;
    cv.emit(ip, {cv.blob(0)}, {t});
    cv.set_out(0, o, t, Converter::kshape(o));
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
