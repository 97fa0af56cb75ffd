// tensorflow2kite: one handler per TensorFlow op (seed 002's classes).
//  fixed format:      Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool,
//                     FusedBatchNorm(V3), BiasAdd (folded into the conv)
//  transposable:      element-wise ops, Concat(V2), Pad/PadV2/MirrorPad,
//                     Mean/Max/Min/Sum/Prod, StridedSlice/Slice, Softmax
//  source format:     Reshape, Squeeze, ExpandDims (Permute where needed)
// Constants (Shape/StridedSlice/Pack chains, Keras batch-norm factors) are
// evaluated here and never reach the kite graph unless an activation needs
// them (MemoryData).

#include "tf_convert_impl.h"

#include "tf_graph.pb.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

namespace kite {
namespace convert {
namespace tf {

namespace {

// TF SAME padding: the extra pixel of an odd total goes to the end
void same_pads(int64_t in, int64_t k_eff, int64_t s, int64_t& lo, int64_t& hi)
{
    const int64_t out = (in + s - 1) / s;
    const int64_t total = std::max((out - 1) * s + k_eff - in, (int64_t)0);
    lo = total / 2;
    hi = total - lo;
}

std::vector<int64_t> four(const std::vector<int64_t>& v, const char* what)
{
    if (v.empty())
        return {1, 1, 1, 1};
    if (v.size() != 4 || v[0] != 1 || v[3] != 1 || v[1] <= 0 || v[2] <= 0 || v[1] > 65536 || v[2] > 65536)
        throw ConvertError(std::string(what) + " must be [1, h, w, 1] with positive h, w");
    return v;
}

struct Geometry
{
    int64_t kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, oh, ow;
};

Geometry window_geometry(const Shape& x, int64_t kh, int64_t kw, const std::vector<int64_t>& strides,
                         const std::vector<int64_t>& dil, const std::string& padding, const std::vector<int64_t>& explicit_pads)
{
    Geometry g;
    g.kh = kh;
    g.kw = kw;
    g.sh = strides[1];
    g.sw = strides[2];
    g.dh = dil[1];
    g.dw = dil[2];
    if (kh <= 0 || kw <= 0 || kh > 65536 || kw > 65536)
        throw ConvertError("kernel size " + std::to_string(kh) + "x" + std::to_string(kw) + " out of range");
    const int64_t ekh = (kh - 1) * g.dh + 1, ekw = (kw - 1) * g.dw + 1;
    if (padding == "SAME")
    {
        same_pads(x[1], ekh, g.sh, g.pt, g.pb);
        same_pads(x[2], ekw, g.sw, g.pl, g.pr);
    }
    else if (padding == "VALID")
    {
        g.pt = g.pb = g.pl = g.pr = 0;
    }
    else if (padding == "EXPLICIT")
    {
        if (explicit_pads.size() != 8)
            throw ConvertError("explicit_paddings must hold 8 values");
        g.pt = explicit_pads[2];
        g.pb = explicit_pads[3];
        g.pl = explicit_pads[4];
        g.pr = explicit_pads[5];
        if (explicit_pads[0] || explicit_pads[1] || explicit_pads[6] || explicit_pads[7])
            throw Unsupported("explicit padding of the batch or channel axis");
        for (int i = 2; i < 6; i++)
            if (explicit_pads[(size_t)i] < 0 || explicit_pads[(size_t)i] > 65536)
                throw ConvertError("explicit padding out of range");
    }
    else
    {
        throw Unsupported("padding '" + padding + "'");
    }
    g.oh = (x[1] + g.pt + g.pb - ekh) / g.sh + 1;
    g.ow = (x[2] + g.pl + g.pr - ekw) / g.sw + 1;
    if (x[1] + g.pt + g.pb < ekh || x[2] + g.pl + g.pr < ekw || g.oh <= 0 || g.ow <= 0)
        throw ConvertError("window larger than the padded input " + shape_string(x));
    return g;
}

// kernel, dilation, stride and pads of a ConvolutionSpec or DeconvolutionSpec
template<class Spec>
void set_conv_window(Spec& s, const Geometry& g)
{
    s.kernel((int)g.kw, (int)g.kh).dilation((int)g.dw, (int)g.dh).stride((int)g.sw, (int)g.sh);
    s.pads((int)g.pl, (int)g.pr, (int)g.pt, (int)g.pb);
}

void set_pool_window(convert::PoolingSpec& s, const Geometry& g)
{
    s.kernel((int)g.kw, (int)g.kh).stride((int)g.sw, (int)g.sh);
    s.pads((int)g.pl, (int)g.pr, (int)g.pt, (int)g.pb);
}

int binary_code(const std::string& op)
{
    if (op == "Add" || op == "AddV2" || op == "BiasAdd")
        return BinaryOp::Operation_ADD;
    if (op == "Sub")
        return BinaryOp::Operation_SUB;
    if (op == "Mul")
        return BinaryOp::Operation_MUL;
    if (op == "RealDiv" || op == "Div")
        return BinaryOp::Operation_DIV;
    if (op == "Maximum")
        return BinaryOp::Operation_MAX;
    if (op == "Minimum")
        return BinaryOp::Operation_MIN;
    if (op == "Pow")
        return BinaryOp::Operation_POW;
    return -1;
}

int unary_code(const std::string& op)
{
    // TensorFlow's names in UnaryOp::Operation_* order (ABS = 0 .. TANH = 16)
    static const char* const names[] = {"Abs", "Neg", "Floor", "Ceil", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Sin", "Cos", "Tan",
                                        "Asin", "Acos", "Atan", "Reciprocal", "Tanh"};
    static_assert(UnaryOp::Operation_TANH == 16, "UnaryOp codes moved");
    for (int i = 0; i <= UnaryOp::Operation_TANH; i++)
        if (op == names[i])
            return i;
    if (op == "Inv")
        return UnaryOp::Operation_RECIPROCAL;
    if (op == "Round")
        return UnaryOp::Operation_ROUND;
    return -1;
}

Const concat_consts(const std::vector<const Const*>& cs, int64_t axis)
{
    Const out;
    out.shape = cs[0]->shape;
    const int64_t r = (int64_t)out.shape.size();
    if (axis < 0)
        axis += r;
    if (axis < 0 || axis >= r)
        throw ConvertError("concat axis out of range");
    out.is_int = true;
    int64_t total = 0;
    for (const Const* c : cs)
    {
        if ((int64_t)c->shape.size() != r)
            throw ConvertError("concat of constants with different ranks");
        for (int64_t i = 0; i < r; i++)
            if (i != axis && c->shape[(size_t)i] != out.shape[(size_t)i])
                throw ConvertError("concat of constants with different shapes");
        total += c->shape[(size_t)axis];
        out.is_int = out.is_int && c->is_int;
    }
    out.shape[(size_t)axis] = total;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; i++)
        outer *= out.shape[(size_t)i];
    for (int64_t i = axis + 1; i < r; i++)
        inner *= out.shape[(size_t)i];
    shape_count(out.shape);
    for (int64_t o = 0; o < outer; o++)
        for (const Const* c : cs)
        {
            const int64_t n = c->shape[(size_t)axis] * inner;
            out.v.insert(out.v.end(), c->v.begin() + o * n, c->v.begin() + (o + 1) * n);
        }
    return out;
}

} // namespace

std::string Converter::input_key(const pb::NodeDef& n, int i)
{
    return data_inputs[n.name()][(size_t)i];
}

void Converter::op_conv(const pb::NodeDef& n, bool depthwise)
{
    const Value x = blob_input(n, 0);
    const Const& f = const_input(n, 1, "filter");
    if (attr_s(n, "data_format", "NHWC") != "NHWC")
        throw Unsupported("data_format " + attr_s(n, "data_format", ""));
    if (x.shape.size() != 4)
        throw Unsupported("input of rank " + std::to_string(x.shape.size()));
    if (f.rank() != 4)
        throw ConvertError("filter must have rank 4, not " + std::to_string(f.rank()));
    const Geometry geo = window_geometry(x.shape, f.shape[0], f.shape[1], four(attr_ints(n, "strides"), "strides"),
                                         four(attr_ints(n, "dilations"), "dilations"), attr_s(n, "padding", ""),
                                         attr_ints(n, "explicit_paddings"));
    const int64_t kh = f.shape[0], kw = f.shape[1], ci = f.shape[2], last = f.shape[3];
    const int64_t C = x.shape[3];
    if (ci <= 0 || last <= 0)
        throw ConvertError("empty filter " + shape_string(f.shape));
    int64_t num_output, group;
    std::vector<float> w((size_t)f.count());
    if (depthwise)
    {
        if (C != ci)
            throw ConvertError("filter " + shape_string(f.shape) + " does not match input " + shape_string(x.shape));
        num_output = ci * last;
        group = ci;
        // TF (kh, kw, ci, m) -> kite (ci * m, 1, kh, kw); output channel g * m + j
        for (int64_t gi = 0; gi < ci; gi++)
            for (int64_t j = 0; j < last; j++)
                for (int64_t y = 0; y < kh; y++)
                    for (int64_t xx = 0; xx < kw; xx++)
                        w[(size_t)((((gi * last + j) * kh + y) * kw) + xx)] = (float)f.v[(size_t)(((y * kw + xx) * ci + gi) * last + j)];
    }
    else
    {
        if (C % ci != 0 || last % (C / ci) != 0)
            throw ConvertError("filter " + shape_string(f.shape) + " does not match input " + shape_string(x.shape));
        num_output = last;
        group = C / ci;
        // HWIO -> OIHW
        for (int64_t o = 0; o < last; o++)
            for (int64_t i = 0; i < ci; i++)
                for (int64_t y = 0; y < kh; y++)
                    for (int64_t xx = 0; xx < kw; xx++)
                        w[(size_t)(((o * ci + i) * kh + y) * kw + xx)] = (float)f.v[(size_t)(((y * kw + xx) * ci + i) * last + o)];
    }
    const std::string top = out_blob(n);
    const bool grouped = group > 1;
    convert::ConvolutionSpec cs;
    cs.type = grouped ? "ConvolutionDepthWise" : "Convolution";
    cs.num_output = (int)num_output;
    set_conv_window(cs, geo);
    cs.bias_term = 0;
    cs.weight_data_size = (int)w.size();
    if (grouped)
        cs.group = (int)group;
    convert::Layer& l = emit(cs, n.name(), {x.blob}, {top});
    l.weights.push_back(convert::Weight(w, true));
    blob_layer[top] = (int)g.layers.size() - 1;
    set_output(n, 0, blob_value(top, {1, geo.oh, geo.ow, num_output}));
}

void Converter::op_deconv(const pb::NodeDef& n)
{
    // Conv2DBackpropInput(input_sizes, filter (kh, kw, out_c, in_c), x)
    const std::vector<int64_t> osz = const_input(n, 0, "input_sizes").ints();
    const Const& f = const_input(n, 1, "filter");
    const Value x = blob_input(n, 2);
    if (attr_s(n, "data_format", "NHWC") != "NHWC")
        throw Unsupported("data_format " + attr_s(n, "data_format", ""));
    if (x.shape.size() != 4 || f.rank() != 4 || osz.size() != 4)
        throw ConvertError("expects rank-4 input, filter and input_sizes");
    const int64_t kh = f.shape[0], kw = f.shape[1], oc = f.shape[2], ic = f.shape[3];
    if (ic != x.shape[3] || oc <= 0 || osz[3] != oc || osz[0] != 1 || osz[1] <= 0 || osz[2] <= 0 || osz[1] > INT_MAX
        || osz[2] > INT_MAX)
        throw ConvertError("filter " + shape_string(f.shape) + ", input " + shape_string(x.shape) + " and input_sizes "
                                 + shape_string(osz) + " do not match");
    // the forward conv of the output size gives the pads; the kite layer
    // computes the full output and cuts them (output_pad adds what is missing)
    const Geometry geo = window_geometry({1, osz[1], osz[2], oc}, kh, kw, four(attr_ints(n, "strides"), "strides"),
                                         four(attr_ints(n, "dilations"), "dilations"), attr_s(n, "padding", ""),
                                         attr_ints(n, "explicit_paddings"));
    if (geo.oh != x.shape[1] || geo.ow != x.shape[2])
        throw ConvertError("input " + shape_string(x.shape) + " is not the conv2d of input_sizes " + shape_string(osz));
    const int64_t full_h = (x.shape[1] - 1) * geo.sh + (kh - 1) * geo.dh + 1;
    const int64_t full_w = (x.shape[2] - 1) * geo.sw + (kw - 1) * geo.dw + 1;
    int64_t pb = full_h - osz[1] - geo.pt, pr = full_w - osz[2] - geo.pl;
    const int64_t opad_h = pb < 0 ? -pb : 0, opad_w = pr < 0 ? -pr : 0;
    pb = std::max(pb, (int64_t)0);
    pr = std::max(pr, (int64_t)0);
    std::vector<float> w((size_t)f.count());
    for (int64_t o = 0; o < oc; o++)
        for (int64_t i = 0; i < ic; i++)
            for (int64_t y = 0; y < kh; y++)
                for (int64_t xx = 0; xx < kw; xx++)
                    w[(size_t)(((o * ic + i) * kh + y) * kw + xx)] = (float)f.v[(size_t)(((y * kw + xx) * oc + o) * ic + i)];
    const std::string top = out_blob(n);
    convert::DeconvolutionSpec ds;
    ds.num_output = (int)oc;
    Geometry kg = geo;
    kg.pb = pb;
    kg.pr = pr;
    set_conv_window(ds, kg);
    ds.bias_term = 0;
    ds.weight_data_size = (int)w.size();
    ds.output_pad_right = (int)opad_w;
    ds.output_pad_bottom = (int)opad_h;
    convert::Layer& l = emit(ds, n.name(), {x.blob}, {top});
    l.weights.push_back(convert::Weight(w, true));
    blob_layer[top] = (int)g.layers.size() - 1;
    set_output(n, 0, blob_value(top, {1, osz[1], osz[2], oc}));
}

void Converter::op_pool(const pb::NodeDef& n)
{
    const Value x = blob_input(n, 0);
    if (attr_s(n, "data_format", "NHWC") != "NHWC")
        throw Unsupported("data_format " + attr_s(n, "data_format", ""));
    if (x.shape.size() != 4)
        throw Unsupported("input of rank " + std::to_string(x.shape.size()));
    const std::vector<int64_t> k = four(attr_ints(n, "ksize"), "ksize");
    const Geometry geo = window_geometry(x.shape, k[1], k[2], four(attr_ints(n, "strides"), "strides"), {1, 1, 1, 1},
                                         attr_s(n, "padding", ""), {});
    const std::string top = out_blob(n);
    convert::PoolingSpec ps;
    ps.pooling_type = n.op() == "MaxPool" ? convert::PoolingSpec::MAX : convert::PoolingSpec::AVG;
    set_pool_window(ps, geo);
    ps.pad_mode = 1;                  // valid: the explicit pads above, floor
    ps.avgpool_count_include_pad = 0; // TF's average excludes the padding
    emit(ps, n.name(), {x.blob}, {top});
    set_output(n, 0, blob_value(top, {1, geo.oh, geo.ow, x.shape[3]}));
}

void Converter::op_batchnorm(const pb::NodeDef& n)
{
    const Value x = blob_input(n, 0);
    if (attr_b(n, "is_training", true))
        throw Unsupported("is_training=true (freeze the graph for inference)");
    if (attr_s(n, "data_format", "NHWC") != "NHWC")
        throw Unsupported("data_format " + attr_s(n, "data_format", ""));
    const int64_t C = x.shape.empty() ? 0 : x.shape.back();
    const Const* p[4];
    for (int i = 0; i < 4; i++)
    {
        p[i] = &const_input(n, i + 1, "batch norm parameter");
        if (p[i]->count() != C)
            throw ConvertError("batch norm parameter " + std::to_string(i + 1) + " has " + std::to_string(p[i]->count())
                                     + " values for " + std::to_string(C) + " channels");
    }
    const double eps = attr_f(n, "epsilon", 1e-4f);
    Const a, b;
    a.shape = b.shape = {C};
    for (int64_t c = 0; c < C; c++)
    {
        const double s = p[0]->v[(size_t)c] / std::sqrt(p[3]->v[(size_t)c] + eps);
        a.v.push_back(s);
        b.v.push_back(p[1]->v[(size_t)c] - p[2]->v[(size_t)c] * s);
    }
    if (try_fold_affine(n, x, input_key(n, 0), &a, &b))
        return;
    if (x.shape.size() != 4 && x.shape.size() != 2)
        throw Unsupported("batch norm of a rank " + std::to_string(x.shape.size()) + " input");
    const std::string top = out_blob(n);
    convert::BatchNormSpec bn;
    bn.channels = (int)C;
    bn.eps = (float)eps;
    convert::Layer& l = emit(bn, n.name(), {x.blob}, {top});
    for (int i : {0, 2, 3, 1}) // slope, mean, var, bias
        l.weights.push_back(convert::Weight(p[i]->floats(), false));
    set_output(n, 0, blob_value(top, x.shape));
}

bool Converter::is_swish(const pb::NodeDef& n, const Value& a, const Value& b)
{
    // Mul(x, Sigmoid(x)) or Keras' Mul(x, Sigmoid(Mul(1.0, x)))
    (void)n;
    for (int side = 0; side < 2; side++)
    {
        const Value& x = side ? b : a;
        const std::string sig_key = input_key(n, side ? 0 : 1);
        const pb::NodeDef* sig = nodes[key_node(sig_key)];
        if (!sig || sig->op() != "Sigmoid" || data_inputs[sig->name()].empty())
            continue;
        const std::string in_key = data_inputs[sig->name()][0];
        const Value& in = values[in_key];
        if (!in.is_const && in.blob == x.blob)
            return true;
        const pb::NodeDef* mul = nodes[key_node(in_key)];
        if (mul && mul->op() == "Mul" && data_inputs[mul->name()].size() == 2)
        {
            const Value& m0 = values[data_inputs[mul->name()][0]];
            const Value& m1 = values[data_inputs[mul->name()][1]];
            const Value* c = m0.is_const ? &m0 : m1.is_const ? &m1 : nullptr;
            const Value* o = m0.is_const ? &m1 : &m0;
            if (c && c->c.count() == 1 && c->c.v[0] == 1.0 && !o->is_const && o->blob == x.blob)
                return true;
        }
    }
    return false;
}

// x when `blob` is x * (-1/sqrt 2) or (-x) * (1/sqrt 2) (for Erfc), or
// x * (1/sqrt 2) or x / sqrt 2 (for Erf), as the scalar BinaryOps emitted
std::string Converter::gelu_source(const std::string& blob, bool erfc)
{
    const convert::Layer* m = producer_layer(blob, "BinaryOp");
    if (!m || m->bottoms.size() != 1 || m->params.get_int(BinaryOp::PARAM_WITH_SCALAR, 0) != 1)
        return std::string();
    const int op = m->params.get_int(BinaryOp::PARAM_OP_TYPE, -1);
    const float s = m->params.get_float(BinaryOp::PARAM_B, 0.f);
    const float r = 0.70710678f;
    const std::string in = m->bottoms[0];
    if (!erfc)
    {
        if ((op == BinaryOp::Operation_MUL && std::fabs(s - r) < 1e-6f) || (op == BinaryOp::Operation_DIV && std::fabs(s - 1.41421356f) < 1e-6f))
            return in;
        return std::string();
    }
    if (op == BinaryOp::Operation_MUL && std::fabs(s + r) < 1e-6f)
        return in;
    if ((op == BinaryOp::Operation_MUL && std::fabs(s - r) < 1e-6f) || (op == BinaryOp::Operation_DIV && std::fabs(s - 1.41421356f) < 1e-6f))
    {
        const convert::Layer* neg = producer_layer(in, "UnaryOp");
        if (neg && neg->params.get_int(UnaryOp::PARAM_OP_TYPE, -1) == UnaryOp::Operation_NEG && neg->bottoms.size() == 1)
            return neg->bottoms[0];
    }
    return std::string();
}

// one step of the exact-GELU pattern on a pending erf value; true when taken
bool Converter::try_gelu(const pb::NodeDef& n, const Value& a, const Value& b)
{
    for (int side = 0; side < 2; side++)
    {
        const Value& p = side ? b : a;
        const Value& o = side ? a : b;
        if (p.is_const)
            continue;
        auto it = pending_erf.find(p.blob);
        if (it == pending_erf.end())
            continue;
        const PendingErf pe = it->second;
        const bool half = o.is_const && o.c.count() == 1 && std::fabs(o.c.v[0] - 0.5) < 1e-7;
        const bool one = o.is_const && o.c.count() == 1 && std::fabs(o.c.v[0] - 1.0) < 1e-7;
        bool is_x = !o.is_const && o.blob == pe.x, is_half_x = false;
        if (!o.is_const && !is_x)
        {
            const convert::Layer* m = producer_layer(o.blob, "BinaryOp");
            is_half_x = m && m->bottoms.size() == 1 && m->bottoms[0] == pe.x && m->params.get_int(BinaryOp::PARAM_WITH_SCALAR, 0) == 1
                        && m->params.get_int(BinaryOp::PARAM_OP_TYPE, -1) == BinaryOp::Operation_MUL
                        && std::fabs(m->params.get_float(BinaryOp::PARAM_B, 0.f) - 0.5f) < 1e-7f;
        }
        const bool add = n.op() == "AddV2" || n.op() == "Add", mul = n.op() == "Mul";
        ErfState next;
        bool done = false;
        if (add && pe.state == ERF_E && one)
            next = ERF_S;
        else if (mul && pe.state == ERF_S && half)
            next = ERF_H;
        else if (mul && pe.state == ERF_S && is_x)
            next = ERF_XS;
        else if (mul && ((pe.state == ERF_S && is_half_x) || (pe.state == ERF_H && is_x) || (pe.state == ERF_XS && half)))
            done = true;
        else
            throw Unsupported("reads the Erf/Erfc of node '" + pe.node + "' outside the exact-GELU pattern 0.5 * x * erfc(-x / sqrt 2)");
        const std::string top = out_blob(n);
        if (done)
        {
            emit(convert::GELUSpec(), n.name(), {pe.x}, {top}); // exact (erf) GELU
            set_output(n, 0, blob_value(top, p.shape));
            return true;
        }
        pending_erf[top] = PendingErf{pe.x, next, pe.node};
        set_output(n, 0, blob_value(top, p.shape));
        return true;
    }
    return false;
}

void Converter::op_binary(const pb::NodeDef& n)
{
    const Value a = input(n, 0), b = input(n, 1);
    if (a.is_const && b.is_const)
    {
        Const out;
        if (!const_binary(n.op(), a.c, b.c, out))
            throw Unsupported("on constants");
        set_output(n, 0, const_value(out));
        return;
    }
    if (!pending_erf.empty() && try_gelu(n, a, b))
        return;
    if (n.op() == "SquaredDifference")
    {
        // (a - b)^2 on activations (the variance of moments / LayerNorm)
        const Shape out_shape = broadcast_shape(a.shape, b.shape);
        const size_t r = out_shape.size();
        const std::string lhs = a.is_const ? emit_memorydata(a.c, r, n.name()) : expand_rank(a, r, n.name() + "_a").blob;
        const std::string rhs = b.is_const ? emit_memorydata(b.c, r, n.name()) : expand_rank(b, r, n.name() + "_b").blob;
        const std::string top = out_blob(n);
        const std::string diff = g.unique_blob_name(top + "_diff");
        emit(convert::BinaryOpSpec::op(BinaryOp::Operation_SUB), n.name() + "_sub", {lhs, rhs}, {diff});
        emit(convert::UnaryOpSpec::op(UnaryOp::Operation_SQUARE), n.name(), {diff}, {top});
        set_output(n, 0, blob_value(top, out_shape));
        return;
    }
    const int code = binary_code(n.op());
    if (code < 0)
        throw Unsupported("on activations");
    const Shape out_shape = broadcast_shape(a.shape, b.shape);
    const std::string top = out_blob(n);
    if (a.is_const || b.is_const)
    {
        const bool const_left = a.is_const;
        const Value& x = const_left ? b : a;
        const Const& c = const_left ? a.c : b.c;
        const std::string key = input_key(n, const_left ? 1 : 0);
        if (out_shape == x.shape)
        {
            if (code == 2 && try_fold_affine(n, x, key, &c, nullptr))
                return;
            if (code == 0 && try_fold_affine(n, x, key, nullptr, &c))
                return;
            if (code == 1 && !const_left && try_fold_affine(n, x, key, nullptr, &c, true))
                return;
            if (code == 3 && !const_left)
            {
                Const inv;
                const_unary("Reciprocal", c, inv);
                if (try_fold_affine(n, x, key, &inv, nullptr))
                    return;
            }
        }
        if (!const_left && c.count() == 1 && (code == 2 || code == 3) && c.v[0] != 0
            && try_hard_sigmoid(n, x, code == 2 ? c.v[0] : 1.0 / c.v[0]))
            return;
        if (code == 2 && out_shape == x.shape && c.count() > 1 && try_scale(n, x, c))
            return;
        if (c.count() == 1)
        {
            int op = code;
            if (const_left && code == BinaryOp::Operation_SUB)
                op = BinaryOp::Operation_RSUB;
            if (const_left && code == BinaryOp::Operation_DIV)
                op = BinaryOp::Operation_RDIV;
            if (const_left && code == BinaryOp::Operation_POW)
                op = BinaryOp::Operation_RPOW;
            emit(convert::BinaryOpSpec::scalar(op, (float)c.v[0]), n.name(), {x.blob}, {top});
            set_output(n, 0, blob_value(top, out_shape));
            return;
        }
        const size_t r = std::max(x.shape.size(), c.shape.size());
        const Value xr = expand_rank(x, r, n.name());
        const std::string md = emit_memorydata(c, r, n.name());
        emit(convert::BinaryOpSpec::op(code), n.name(),
             const_left ? std::vector<std::string>{md, xr.blob} : std::vector<std::string>{xr.blob, md}, {top});
        set_output(n, 0, blob_value(top, out_shape));
        return;
    }
    if (code == 2 && a.shape == b.shape && try_hard_swish(n, a, b))
        return;
    if (code == 2 && a.shape == b.shape && is_swish(n, a, b))
    {
        // the Sigmoid side is left dead and removed by finalize()
        const pb::NodeDef* s0 = nodes[key_node(input_key(n, 0))];
        const Value& x = s0 && s0->op() == "Sigmoid" ? b : a;
        add_layer("Swish", n.name(), {x.blob}, {top});
        set_output(n, 0, blob_value(top, out_shape));
        return;
    }
    const size_t r = out_shape.size();
    const Value ar = expand_rank(a, r, n.name() + "_a");
    const Value br = expand_rank(b, r, n.name() + "_b");
    emit(convert::BinaryOpSpec::op(code), n.name(), {ar.blob, br.blob}, {top});
    set_output(n, 0, blob_value(top, out_shape));
}

void Converter::op_unary(const pb::NodeDef& n)
{
    const Value x = input(n, 0);
    const std::string& op = n.op();
    if (x.is_const)
    {
        Const out;
        if (!const_unary(op, x.c, out))
            throw Unsupported("on constants");
        set_output(n, 0, const_value(out));
        return;
    }
    const std::string key = input_key(n, 0);
    const std::string top = out_blob(n);
    if (op == "Relu")
    {
        if (!try_fold_activation(n, x, key, ACTIVATION_RELU, {}))
        {
            add_layer("ReLU", n.name(), {x.blob}, {top});
            set_output(n, 0, blob_value(top, x.shape));
        }
        return;
    }
    if (op == "Relu6")
    {
        if (!try_fold_activation(n, x, key, ACTIVATION_CLIP, {0.f, 6.f}))
        {
            convert::ClipSpec cs;
            cs.min = 0.f;
            cs.max = 6.f;
            emit(cs, n.name(), {x.blob}, {top});
            set_output(n, 0, blob_value(top, x.shape));
        }
        return;
    }
    if (op == "LeakyRelu")
    {
        const float alpha = attr_f(n, "alpha", 0.2f);
        if (!try_fold_activation(n, x, key, ACTIVATION_LEAKYRELU, {alpha}))
        {
            convert::ReLUSpec rs;
            rs.slope = alpha;
            emit(rs, n.name(), {x.blob}, {top});
            set_output(n, 0, blob_value(top, x.shape));
        }
        return;
    }
    if (op == "Sigmoid")
    {
        // a Sigmoid feeding a swish Mul is left to the Mul (Swish layer)
        add_layer("Sigmoid", n.name(), {x.blob}, {top});
        set_output(n, 0, blob_value(top, x.shape));
        return;
    }
    if (op == "Elu" || op == "Softplus" || op == "Selu")
    {
        if (op == "Elu")
        {
            convert::ELUSpec es;
            es.alpha = 1.f; // ncnn's ELU defaults to alpha 0.1
            emit(es, n.name(), {x.blob}, {top});
        }
        else if (op == "Selu")
        {
            convert::SELUSpec ss;
            ss.alpha = 1.67326324f;
            ss.lambda = 1.05070098f;
            emit(ss, n.name(), {x.blob}, {top});
        }
        else
            emit(convert::PlainSpec("Softplus"), n.name(), {x.blob}, {top});
        set_output(n, 0, blob_value(top, x.shape));
        return;
    }
    if (op == "Tanh")
    {
        add_layer("TanH", n.name(), {x.blob}, {top});
        set_output(n, 0, blob_value(top, x.shape));
        return;
    }
    if (op == "Erf" || op == "Erfc")
    {
        const std::string src = gelu_source(x.blob, op == "Erfc");
        if (src.empty())
            throw Unsupported("on activations (converted only inside exact GELU: 0.5 * x * erfc(-x / sqrt 2))");
        pending_erf[top] = PendingErf{src, op == "Erfc" ? ERF_S : ERF_E, n.name()};
        set_output(n, 0, blob_value(top, x.shape));
        return;
    }
    const int code = unary_code(op);
    if (code < 0)
        throw Unsupported("on activations");
    emit(convert::UnaryOpSpec::op(code), n.name(), {x.blob}, {top});
    set_output(n, 0, blob_value(top, x.shape));
}

void Converter::op_reduce(const pb::NodeDef& n)
{
    if (input(n, 0).is_const && input(n, 0).c.shape.size() <= 1)
    {
        // a reduction of a shape vector (Tensordot's Prod of the free dimensions)
        const Const& a = input(n, 0).c;
        const std::vector<int64_t> ax = const_input(n, 1, "reduction axes").ints();
        for (int64_t v : ax)
            if (v != 0 && v != -1)
                throw ConvertError("reduction axis out of range");
        const std::string& op = n.op();
        double acc = op == "Prod" ? 1.0 : op == "Sum" || op == "Mean" ? 0.0 : a.v.empty() ? 0.0 : a.v[0];
        for (double v : a.v)
            acc = op == "Prod" ? acc * v : op == "Sum" || op == "Mean" ? acc + v : op == "Max" ? std::max(acc, v) : std::min(acc, v);
        if (op == "Mean" && !a.v.empty())
            acc /= (double)a.v.size();
        Const c;
        c.is_int = a.is_int && op != "Mean";
        if (attr_b(n, "keep_dims", false) && a.shape.size() == 1)
            c.shape = {1};
        c.v.push_back(c.is_int ? (double)(int64_t)acc : acc);
        set_output(n, 0, const_value(c));
        return;
    }
    const Value x = blob_input(n, 0);
    const std::vector<int64_t> raw_axes = const_input(n, 1, "reduction axes").ints();
    const bool keep = attr_b(n, "keep_dims", false);
    const std::string& op = n.op();
    int code = -1;
    if (op == "Sum")
        code = Reduction::OP_SUM;
    if (op == "Mean")
        code = Reduction::OP_MEAN;
    if (op == "Max")
        code = Reduction::OP_MAX;
    if (op == "Min")
        code = Reduction::OP_MIN;
    if (op == "Prod")
        code = Reduction::OP_PROD;
    const convert::nhwc::ReducePlan p = convert::nhwc::reduce_plan(raw_axes, x.shape, keep, code);
    const std::string top = out_blob(n);
    if (p.over_hw && (op == "Mean" || op == "Max"))
    {
        const std::string pooled = keep ? g.unique_blob_name(top + "_pooled") : top;
        convert::PoolingSpec ps;
        ps.pooling_type = op == "Max" ? convert::PoolingSpec::MAX : convert::PoolingSpec::AVG;
        ps.global_pooling = 1;
        emit(ps, keep ? n.name() + "_pool" : n.name(), {x.blob}, {pooled});
        Value v = blob_value(pooled, {1, x.shape[3]});
        if (keep)
            v = emit_reshape(v, p.out, n.name(), top);
        set_output(n, 0, v);
        return;
    }
    if (code < 0 || p.axes.empty())
        throw Unsupported(p.axes.empty() ? "no axes" : "reduction");
    const std::string red = p.reshape_after ? g.unique_blob_name(top + "_keep") : top;
    emit(p.spec, p.reshape_after ? n.name() + "_keep" : n.name(), {x.blob}, {red});
    Value v = blob_value(red, p.reshape_after ? p.kept : p.out);
    if (p.reshape_after)
        v = emit_reshape(v, p.out, n.name(), top);
    set_output(n, 0, v);
}

void Converter::op_pad(const pb::NodeDef& n)
{
    const Value x = blob_input(n, 0);
    const Const& pc = const_input(n, 1, "paddings");
    const size_t r = x.shape.size();
    if (pc.rank() != 2 || pc.shape[0] != (int64_t)r || pc.shape[1] != 2)
        throw ConvertError("paddings of shape " + shape_string(pc.shape) + " for a rank " + std::to_string(r) + " input");
    float value = 0.f;
    int type = Padding::PAD_CONSTANT;
    if (n.op() == "PadV2")
        value = (float)const_input(n, 2, "pad value").v.at(0);
    if (n.op() == "MirrorPad")
    {
        if (attr_s(n, "mode", "") != "REFLECT")
            throw Unsupported("mode " + attr_s(n, "mode", ""));
        type = Padding::PAD_REFLECT;
    }
    Shape out;
    const convert::PaddingSpec ps = convert::nhwc::pad_spec(pc.ints(), x.shape, type, value, out);
    const std::string t = out_blob(n);
    emit(ps, n.name(), {x.blob}, {t});
    set_output(n, 0, blob_value(t, out));
}

void Converter::op_concat(const pb::NodeDef& n)
{
    const int count = input_count(n);
    if (count < 2)
        throw ConvertError("needs inputs and an axis");
    const bool v2 = n.op() == "ConcatV2";
    const Const& ac = const_input(n, v2 ? count - 1 : 0, "axis");
    if (ac.count() != 1)
        throw ConvertError("axis must be a scalar");
    const int64_t axis = ac.ints()[0];
    std::vector<Value> ins;
    for (int i = v2 ? 0 : 1; i < (v2 ? count - 1 : count); i++)
        ins.push_back(input(n, i));
    bool all_const = true;
    size_t r = 0;
    for (const Value& v : ins)
    {
        all_const = all_const && v.is_const;
        if (!v.is_const)
            r = v.shape.size();
    }
    if (all_const)
    {
        std::vector<const Const*> cs;
        for (const Value& v : ins)
            cs.push_back(&v.c);
        set_output(n, 0, const_value(concat_consts(cs, axis)));
        return;
    }
    const int ka = kaxis(axis, r);
    const int64_t ta = axis < 0 ? axis + (int64_t)r : axis;
    std::vector<Shape> shapes;
    for (const Value& v : ins)
        shapes.push_back(v.shape);
    const Shape out = convert::nhwc::concat_shape(shapes, ta);
    std::vector<std::string> bottoms;
    for (const Value& v : ins)
        bottoms.push_back(v.is_const ? emit_memorydata(v.c, r, n.name()) : v.blob);
    const std::string top = out_blob(n);
    emit(convert::ConcatSpec::on(ka), n.name(), bottoms, {top});
    set_output(n, 0, blob_value(top, out));
}

void Converter::op_reshape(const pb::NodeDef& n)
{
    const Value x = input(n, 0);
    Shape target;
    if (n.op() == "Reshape")
    {
        target = resolve_reshape(x.shape, const_input(n, 1, "shape").ints());
    }
    else if (n.op() == "Squeeze")
    {
        std::vector<int64_t> dims = attr_ints(n, "squeeze_dims");
        const int64_t r = (int64_t)x.shape.size();
        for (int64_t& d : dims)
        {
            if (d < 0)
                d += r;
            if (d < 0 || d >= r || x.shape[(size_t)d] != 1)
                throw ConvertError("squeeze of a dimension that is not 1");
        }
        for (int64_t i = 0; i < r; i++)
        {
            const bool drop = dims.empty() ? x.shape[(size_t)i] == 1 : std::find(dims.begin(), dims.end(), i) != dims.end();
            if (!drop)
                target.push_back(x.shape[(size_t)i]);
        }
    }
    else
    {
        const Const& ac = const_input(n, 1, "axis");
        if (ac.count() != 1)
            throw ConvertError("axis must be a scalar");
        int64_t a = ac.ints()[0];
        const int64_t r = (int64_t)x.shape.size();
        if (a < 0)
            a += r + 1;
        if (a < 0 || a > r)
            throw ConvertError("axis out of range");
        target = x.shape;
        target.insert(target.begin() + a, 1);
    }
    if (x.is_const)
    {
        Const c = x.c;
        c.shape = target;
        set_output(n, 0, const_value(c));
        return;
    }
    // rows of a Dense on a feature map (Keras' Tensordot: [1, H, W, C] -> [H * W, C]):
    // the rows keep a batch of 1, as [1, rows, C]; MatMul applies per row
    if (target.size() == 2 && target[0] > 1)
        target.insert(target.begin(), 1);
    set_output(n, 0, emit_reshape(x, target, n.name(), out_blob(n)));
}

void Converter::op_slice(const pb::NodeDef& n)
{
    const Value x = input(n, 0);
    std::vector<int64_t> begin = const_input(n, 1, "begin").ints();
    std::vector<int64_t> end, strides;
    SliceSpec s;
    if (n.op() == "Slice")
    {
        const std::vector<int64_t> size = const_input(n, 2, "size").ints();
        if (size.size() != begin.size())
            throw ConvertError("begin and size lengths differ");
        for (size_t i = 0; i < begin.size(); i++)
        {
            if (i >= x.shape.size() || begin[i] < 0 || begin[i] > x.shape[i])
                throw ConvertError("slice begin out of range");
            end.push_back(size[i] == -1 ? x.shape[i] : begin[i] + size[i]);
            if (end.back() > x.shape[i] || end.back() < begin[i])
                throw ConvertError("slice size out of range");
        }
        strides.assign(begin.size(), 1);
        s = resolve_strided_slice(x.shape, begin, end, strides, 0, 0, 0, 0, 0);
    }
    else
    {
        end = const_input(n, 2, "end").ints();
        strides = const_input(n, 3, "strides").ints();
        s = resolve_strided_slice(x.shape, begin, end, strides, attr_i(n, "begin_mask", 0), attr_i(n, "end_mask", 0),
                                  attr_i(n, "ellipsis_mask", 0), attr_i(n, "new_axis_mask", 0), attr_i(n, "shrink_axis_mask", 0));
    }
    if (x.is_const)
    {
        set_output(n, 0, const_value(const_strided_slice(x.c, s)));
        return;
    }
    const size_t r = x.shape.size();
    std::vector<int> starts, ends, axes;
    for (size_t i = 0; i < r; i++)
    {
        if (s.begin[i] == 0 && s.out_shape_full[i] == x.shape[i] && s.stride[i] == 1)
            continue;
        if (s.stride[i] != 1)
            throw Unsupported("stride " + std::to_string(s.stride[i]));
        const int ka = kaxis((int64_t)i, r);
        starts.push_back((int)s.begin[i]);
        ends.push_back((int)(s.begin[i] + s.out_shape_full[i]));
        axes.push_back(ka);
    }
    const std::string top = out_blob(n);
    Value full = x;
    if (!axes.empty())
    {
        const bool shrink = s.out_shape != s.out_shape_full;
        const std::string crop = shrink ? g.unique_blob_name(top + "_crop") : top;
        convert::CropSpec cs;
        cs.starts = starts;
        cs.ends = ends;
        cs.axes = axes;
        emit(cs, shrink ? n.name() + "_crop" : n.name(), {x.blob}, {crop});
        full = blob_value(crop, s.out_shape_full);
    }
    if (s.out_shape != s.out_shape_full)
        full = emit_reshape(full, s.out_shape, n.name(), top);
    set_output(n, 0, full);
}

void Converter::op_matmul(const pb::NodeDef& n)
{
    const Value a = blob_input(n, 0);
    const Value& bv = input(n, 1);
    if (!bv.is_const)
        throw Unsupported("both operands are activations");
    if (attr_b(n, "transpose_a", false))
        throw Unsupported("transpose_a");
    const Const& b = bv.c;
    // [1, rows, K]: the rows of a Tensordot (op_reshape), one InnerProduct per row
    const bool rows = a.shape.size() == 3 && a.shape[0] == 1;
    if ((a.shape.size() != 2 && !rows) || b.rank() != 2)
        throw Unsupported("operands of rank " + std::to_string(a.shape.size()) + " and " + std::to_string(b.rank()));
    const bool tb = attr_b(n, "transpose_b", false);
    const int64_t K = tb ? b.shape[1] : b.shape[0], M = tb ? b.shape[0] : b.shape[1];
    if (K != a.shape.back() || M <= 0)
        throw ConvertError("MatMul of " + shape_string(a.shape) + " and " + shape_string(b.shape));
    std::vector<float> w((size_t)(K * M));
    for (int64_t m = 0; m < M; m++)
        for (int64_t k = 0; k < K; k++)
            w[(size_t)(m * K + k)] = (float)b.v[(size_t)(tb ? m * K + k : k * M + m)];
    const std::string top = out_blob(n);
    convert::InnerProductSpec ip;
    ip.num_output = (int)M;
    ip.bias_term = 0;
    ip.weight_data_size = (int)w.size();
    convert::Layer& l = emit(ip, n.name(), {a.blob}, {top});
    l.weights.push_back(convert::Weight(w, true));
    blob_layer[top] = (int)g.layers.size() - 1;
    set_output(n, 0, blob_value(top, rows ? Shape{1, a.shape[1], M} : Shape{1, M}));
}

void Converter::op_resize(const pb::NodeDef& n)
{
    const Value x = blob_input(n, 0);
    if (x.shape.size() != 4)
        throw Unsupported("input of rank " + std::to_string(x.shape.size()));
    const std::vector<int64_t> size = const_input(n, 1, "size").ints();
    if (size.size() != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > INT_MAX || size[1] > INT_MAX)
        throw ConvertError("size must hold two positive ints");
    const bool align = attr_b(n, "align_corners", false), half = attr_b(n, "half_pixel_centers", false);
    const bool nearest = n.op() == "ResizeNearestNeighbor";
    // kite's Interp: nearest takes floor(dst * in / out) (TF's legacy mode;
    // the same as half-pixel centres for whole upscale factors); bilinear
    // uses half-pixel centres or align_corners
    if (nearest)
    {
        if (align || (half && (size[0] % x.shape[1] || size[1] % x.shape[2])))
            throw Unsupported(align ? "align_corners" : "half_pixel_centers with a fractional scale");
    }
    else if (!align && !half)
    {
        throw Unsupported("bilinear without half_pixel_centers or align_corners (TF1's legacy mode)");
    }
    const std::string top = out_blob(n);
    convert::InterpSpec is;
    is.resize_type = nearest ? 1 : 2;
    is.output_height = (int)size[0];
    is.output_width = (int)size[1];
    is.align_corner = align ? 1 : 0;
    emit(is, n.name(), {x.blob}, {top});
    set_output(n, 0, blob_value(top, {1, size[0], size[1], x.shape[3]}));
}

void Converter::op_transpose(const pb::NodeDef& n)
{
    const Value x = blob_input(n, 0);
    const std::vector<int64_t> p = const_input(n, 1, "perm").ints();
    const size_t r = x.shape.size();
    const Shape out = convert::nhwc::permuted_shape(x.shape, p);
    if (r < 2 || p[0] != 0 || r > 4)
        throw Unsupported(r > 4 ? "rank above 4" : "moving the batch axis");
    // kite letters of the input's TF axes: rank 4 is CHW, rank 3 is (h, w)
    const char* letters = r == 4 ? "?hwc" : r == 3 ? "?hw" : "?w";
    std::string spec; // new (w, h, c) as old letters
    if (r == 4)
        spec = std::string() + letters[p[2]] + letters[p[1]] + letters[p[3]];
    else if (r == 3)
        spec = std::string() + letters[p[2]] + letters[p[1]];
    static const char* const orders3[6] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
    int order = -1;
    if (r == 4)
    {
        for (int i = 0; i < 6; i++)
            if (spec == orders3[i])
                order = i;
    }
    else if (r == 3)
    {
        order = spec == "wh" ? 0 : 1;
    }
    if (order <= 0)
    {
        set_output(n, 0, blob_value(x.blob, out)); // identity on kite's layout
        return;
    }
    const std::string top = out_blob(n);
    emit(convert::PermuteSpec::order(order), n.name(), {x.blob}, {top});
    set_output(n, 0, blob_value(top, out));
}

// shape arithmetic that must fold to constants
void Converter::op_const_only(const pb::NodeDef& n)
{
    const std::string& op = n.op();
    if (op == "Shape" || op == "Size" || op == "Rank")
    {
        const Value& x = input(n, 0);
        for (int64_t d : x.shape)
            if (d < 0)
                throw Unsupported("shape of an unknown dimension");
        Const c;
        c.is_int = true;
        if (op == "Shape")
        {
            c.shape = {(int64_t)x.shape.size()};
            c.v.assign(x.shape.begin(), x.shape.end());
        }
        else
        {
            c.v.push_back(op == "Size" ? (double)shape_count(x.shape) : (double)x.shape.size());
        }
        set_output(n, 0, const_value(c));
        return;
    }
    if (op == "Transpose" && !input(n, 0).is_const)
        return op_transpose(n);
    if (op != "Pack" && op != "Fill" && op != "Transpose" && op != "GatherV2" && op != "Gather")
        throw Unsupported("");
    for (int i = 0; i < input_count(n); i++)
        if (!input(n, i).is_const)
            throw Unsupported("on activations");
    if (op == "GatherV2" || op == "Gather")
    {
        // entries of a shape (Tensordot's free and contracted dimensions)
        if (attr_i(n, "batch_dims", 0) != 0)
            throw Unsupported("batch_dims");
        const Const& p = input(n, 0).c;
        const Const& ic = input(n, 1).c;
        const std::vector<int64_t> idx = ic.ints();
        int64_t axis = op == "GatherV2" && input_count(n) > 2 ? input(n, 2).c.ints().at(0) : 0;
        const int64_t r = (int64_t)p.shape.size();
        if (axis < 0)
            axis += r;
        if (axis < 0 || axis >= r)
            throw ConvertError("axis out of range for rank " + std::to_string(r));
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; i++)
            outer *= p.shape[i];
        for (int64_t i = axis + 1; i < r; i++)
            inner *= p.shape[i];
        const int64_t dim = p.shape[axis];
        Const c;
        c.is_int = p.is_int;
        c.shape.assign(p.shape.begin(), p.shape.begin() + axis);
        c.shape.insert(c.shape.end(), ic.shape.begin(), ic.shape.end());
        c.shape.insert(c.shape.end(), p.shape.begin() + axis + 1, p.shape.end());
        for (int64_t o = 0; o < outer; o++)
            for (int64_t k : idx)
            {
                if (k < -dim || k >= dim)
                    throw ConvertError("index " + std::to_string(k) + " out of range for a dimension of " + std::to_string(dim));
                const int64_t j = k < 0 ? k + dim : k;
                c.v.insert(c.v.end(), p.v.begin() + (o * dim + j) * inner, p.v.begin() + (o * dim + j + 1) * inner);
            }
        set_output(n, 0, const_value(c));
        return;
    }
    if (op == "Pack")
    {
        std::vector<Const> parts;
        std::vector<const Const*> ps;
        int64_t axis = attr_i(n, "axis", 0);
        for (int i = 0; i < input_count(n); i++)
        {
            Const c = input(n, i).c;
            const int64_t r = (int64_t)c.shape.size();
            const int64_t a = axis < 0 ? axis + r + 1 : axis;
            if (a < 0 || a > r)
                throw ConvertError("axis out of range");
            c.shape.insert(c.shape.begin() + a, 1);
            parts.push_back(c);
        }
        if (parts.empty())
            throw ConvertError("no inputs");
        for (const Const& c : parts)
            ps.push_back(&c);
        const int64_t r = (int64_t)parts[0].shape.size();
        set_output(n, 0, const_value(concat_consts(ps, axis < 0 ? axis + r : axis)));
        return;
    }
    if (op == "Fill")
    {
        Const c;
        const std::vector<int64_t> dims = input(n, 0).c.ints();
        c.shape.assign(dims.begin(), dims.end());
        c.v.assign((size_t)shape_count(c.shape), input(n, 1).c.v.at(0));
        c.is_int = input(n, 1).c.is_int;
        set_output(n, 0, const_value(c));
        return;
    }
    if (op == "Transpose")
    {
        const std::vector<int64_t> p = input(n, 1).c.ints();
        set_output(n, 0, const_value(const_transpose(input(n, 0).c, std::vector<int>(p.begin(), p.end()))));
        return;
    }
    throw Unsupported("");
}

bool known_op(const std::string& op)
{
    static const char* const ops[] = {
        "Const", "NoOp", "Placeholder", "Identity", "StopGradient", "Snapshot", "PreventGradient", "PlaceholderWithDefault",
        "EnsureShape", "IdentityN", "Cast", "Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "FusedBatchNorm",
        "FusedBatchNormV2", "FusedBatchNormV3", "BiasAdd", "FloorDiv", "FloorMod", "SquaredDifference", "Relu", "Relu6",
        "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Selu", "Softplus", "Mean", "Max", "Min", "Sum", "Prod", "Pad", "PadV2",
        "MirrorPad", "ConcatV2", "Concat", "Reshape", "Squeeze", "ExpandDims", "StridedSlice", "Slice", "MatMul", "Softmax",
        "AddN", "Shape", "Size", "Rank", "Pack", "Fill", "Transpose", "GatherV2", "Gather", "ResizeBilinear", "ResizeNearestNeighbor", "Conv2DBackpropInput",
        "Erf", "Erfc"};
    for (const char* o : ops)
        if (op == o)
            return true;
    return binary_code(op) >= 0 || unary_code(op) >= 0;
}

void Converter::convert_node(const pb::NodeDef& n)
{
    const std::string& op = n.op();
    if (op == "Const")
    {
        const pb::AttrValue* a = attr(n, "value");
        if (!a || a->value_case() != pb::AttrValue::kTensor)
            throw ConvertError("Const without a value");
        Value v;
        v.is_const = true;
        v.c = const_from_proto(a->tensor());
        v.shape = v.c.shape;
        if (release_tensor_content)
        {
            // the Converter's caller owns the GraphDef and reads no Const
            // value after this run (convert_graphdef)
            pb::TensorProto* t = const_cast<pb::AttrValue*>(a)->mutable_tensor();
            std::string().swap(*t->mutable_tensor_content());
        }
        values[n.name() + ":0"] = std::move(v);
        return;
    }
    if (op == "NoOp")
        return;
    if (op == "Placeholder")
        throw ConvertError("placeholder is not among the declared inputs");
    if (op == "Identity" || op == "StopGradient" || op == "Snapshot" || op == "PreventGradient" || op == "PlaceholderWithDefault"
        || op == "EnsureShape")
    {
        set_output(n, 0, input(n, 0));
        return;
    }
    if (op == "IdentityN")
    {
        for (int i = 0; i < input_count(n); i++)
            set_output(n, i, input(n, i));
        return;
    }
    if (op == "Cast")
    {
        const Value& x = input(n, 0);
        const int64_t dst = attr_i(n, "DstT", 1);
        const bool to_float = dst == 1 || dst == 2 || dst == 19;
        if (x.is_const)
        {
            Const c = x.c;
            c.is_int = !to_float;
            if (!to_float)
                for (double& v : c.v)
                    v = std::trunc(v);
            set_output(n, 0, const_value(c));
            return;
        }
        if (!to_float)
            throw Unsupported("cast of an activation to an integer type");
        set_output(n, 0, x);
        return;
    }
    if (op == "Conv2D" || op == "DepthwiseConv2dNative")
        return op_conv(n, op != "Conv2D");
    if (op == "MaxPool" || op == "AvgPool")
        return op_pool(n);
    if (op == "Conv2DBackpropInput")
        return op_deconv(n);
    if (op == "FusedBatchNorm" || op == "FusedBatchNormV3" || op == "FusedBatchNormV2")
        return op_batchnorm(n);
    if (op == "BiasAdd")
    {
        if (attr_s(n, "data_format", "NHWC") != "NHWC")
            throw Unsupported("data_format " + attr_s(n, "data_format", ""));
        return op_binary(n);
    }
    if (binary_code(op) >= 0 || op == "FloorDiv" || op == "FloorMod" || op == "SquaredDifference")
        return op_binary(n);
    if (op == "Relu" || op == "Relu6" || op == "LeakyRelu" || op == "Sigmoid" || op == "Tanh" || op == "Elu" || op == "Selu"
        || op == "Softplus" || op == "Erf" || op == "Erfc" || unary_code(op) >= 0)
        return op_unary(n);
    if (op == "Mean" || op == "Max" || op == "Min" || op == "Sum" || op == "Prod")
        return op_reduce(n);
    if (op == "Pad" || op == "PadV2" || op == "MirrorPad")
        return op_pad(n);
    if (op == "ConcatV2" || op == "Concat")
        return op_concat(n);
    if (op == "Reshape" || op == "Squeeze" || op == "ExpandDims")
        return op_reshape(n);
    if (op == "StridedSlice" || op == "Slice")
        return op_slice(n);
    if (op == "MatMul")
        return op_matmul(n);
    if (op == "ResizeBilinear" || op == "ResizeNearestNeighbor")
        return op_resize(n);
    if (op == "Softmax")
    {
        const Value x = blob_input(n, 0);
        const std::string top = out_blob(n);
        convert::SoftmaxSpec sm;
        sm.axis = kaxis((int64_t)x.shape.size() - 1, x.shape.size());
        sm.fixbug0 = 1;
        emit(sm, n.name(), {x.blob}, {top});
        set_output(n, 0, blob_value(top, x.shape));
        return;
    }
    if (op == "AddN")
    {
        std::vector<std::string> bottoms;
        Shape s;
        for (int i = 0; i < input_count(n); i++)
        {
            const Value& v = blob_input(n, i);
            if (i && v.shape != s)
                throw Unsupported("inputs of different shapes");
            s = v.shape;
            bottoms.push_back(v.blob);
        }
        const std::string top = out_blob(n);
        convert::EltwiseSpec es;
        es.op_type = Eltwise::Operation_SUM;
        emit(es, n.name(), bottoms, {top});
        set_output(n, 0, blob_value(top, s));
        return;
    }
    op_const_only(n);
}

} // namespace tf
} // namespace convert
} // namespace kite
