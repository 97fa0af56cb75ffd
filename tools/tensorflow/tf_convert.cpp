// tensorflow2kite: the GraphDef walk, layout bookkeeping and the shared
// emitters (reshape with permutes, constants as MemoryData, folding into
// convolutions). The per-op handlers live in tf_ops.cpp.

#include "tf_convert_impl.h"

#include "layer/clip.h"
#include "layer/convolution.h"
#include "layer/hardsigmoid.h"
#include "layer/innerproduct.h"
#include "layer/scale.h"

#include "tf_graph.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <functional>
#include <cmath>
#include <stdexcept>

namespace kite {
namespace convert {
namespace tf {

std::string tensor_key(const std::string& input)
{
    const size_t colon = input.rfind(':');
    if (colon != std::string::npos && colon + 1 < input.size()
        && input.find_first_not_of("0123456789", colon + 1) == std::string::npos)
        return input;
    return input + ":0";
}

std::string key_node(const std::string& key)
{
    return key.substr(0, key.rfind(':'));
}

// --- attributes ----------------------------------------------------------

const pb::AttrValue* Converter::attr(const pb::NodeDef& n, const char* name)
{
    auto it = n.attr().find(name);
    return it == n.attr().end() ? nullptr : &it->second;
}

int64_t Converter::attr_i(const pb::NodeDef& n, const char* name, int64_t def)
{
    const pb::AttrValue* a = attr(n, name);
    return a && a->value_case() == pb::AttrValue::kI ? a->i() : def;
}

float Converter::attr_f(const pb::NodeDef& n, const char* name, float def)
{
    const pb::AttrValue* a = attr(n, name);
    return a && a->value_case() == pb::AttrValue::kF ? a->f() : def;
}

bool Converter::attr_b(const pb::NodeDef& n, const char* name, bool def)
{
    const pb::AttrValue* a = attr(n, name);
    return a && a->value_case() == pb::AttrValue::kB ? a->b() : def;
}

std::string Converter::attr_s(const pb::NodeDef& n, const char* name, const std::string& def)
{
    const pb::AttrValue* a = attr(n, name);
    return a && a->value_case() == pb::AttrValue::kS ? a->s() : def;
}

std::vector<int64_t> Converter::attr_ints(const pb::NodeDef& n, const char* name)
{
    const pb::AttrValue* a = attr(n, name);
    std::vector<int64_t> r;
    if (a && a->value_case() == pb::AttrValue::kList)
        r.assign(a->list().i().begin(), a->list().i().end());
    return r;
}

// --- layout --------------------------------------------------------------

using convert::nhwc::checked_int;

std::vector<int> Converter::kdims(const Shape& s)
{
    for (int64_t d : s)
        if (d < 0)
            throw Unsupported("unknown dimension in shape " + shape_string(s) + " (give input_shapes=)");
    switch (s.size())
    {
    case 1: return {checked_int(s[0])};
    case 2:
    case 3:
    case 4:
        if (s[0] != 1)
            throw Unsupported("batch " + std::to_string(s[0]) + " (only batch 1 is supported)");
        if (s.size() == 2)
            return {checked_int(s[1])};
        if (s.size() == 3)
            return {checked_int(s[1]), checked_int(s[2])};
        return {checked_int(s[3]), checked_int(s[1]), checked_int(s[2])};
    }
    throw Unsupported("rank " + std::to_string(s.size()) + " activation");
}

std::vector<int> Converter::source_kdims(const Shape& s)
{
    std::vector<int> k = kdims(s);
    if (s.size() == 4)
        return {checked_int(s[1]), checked_int(s[2]), checked_int(s[3])};
    return k;
}

bool Converter::order_differs(const Shape& s)
{
    return convert::nhwc::order_differs(s);
}

int Converter::kaxis(int64_t a, size_t rank)
{
    return convert::nhwc::kite_axis(a, rank);
}

void Converter::set_shape_params(convert::Layer& l, const std::vector<int>& k)
{
    convert::nhwc::set_shape_params(l, k);
    if (l.tops.size() == 1)
        kshapes[l.tops[0]] = std::vector<int64_t>(k.begin(), k.end());
}

// --- values --------------------------------------------------------------

Value Converter::blob_value(const std::string& blob, const Shape& shape)
{
    Value v;
    v.blob = blob;
    v.shape = shape;
    if (!kshapes.count(blob) && shape.size() >= 1 && shape.size() <= 4 && (shape.size() == 1 || shape[0] == 1))
    {
        try
        {
            const std::vector<int> k = kdims(shape);
            kshapes[blob] = std::vector<int64_t>(k.begin(), k.end());
        }
        catch (const std::exception&)
        {
            // a size kite cannot hold: the layer that needs it says so
        }
    }
    return v;
}

Value Converter::const_value(const Const& c)
{
    Value v;
    v.is_const = true;
    v.c = c;
    v.shape = c.shape;
    return v;
}

const Value& Converter::input(const pb::NodeDef& n, int i)
{
    if (i >= (int)data_inputs[n.name()].size())
        throw ConvertError("expects at least " + std::to_string(i + 1) + " inputs");
    const std::string& key = data_inputs[n.name()][(size_t)i];
    auto it = values.find(key);
    if (it == values.end())
        throw ConvertError("input '" + key + "' is not produced by any node");
    if (it->second.released)
        throw ConvertError("internal: the constant '" + key + "' was released before this reader");
    return it->second;
}

void Converter::release_constant(const std::string& key)
{
    auto it = values.find(key);
    if (it == values.end() || !it->second.is_const || it->second.c.count() < kReleaseElements)
        return;
    std::vector<double>().swap(it->second.c.v);
    it->second.released = true;
}

int Converter::input_count(const pb::NodeDef& n)
{
    return (int)data_inputs[n.name()].size();
}

const Const& Converter::const_input(const pb::NodeDef& n, int i, const char* what)
{
    const Value& v = input(n, i);
    if (!v.is_const)
        throw Unsupported(std::string(what) + " must be a constant");
    return v.c;
}

const Value& Converter::blob_input(const pb::NodeDef& n, int i)
{
    const Value& v = input(n, i);
    if (v.is_const)
        throw Unsupported("constant input " + std::to_string(i) + " where an activation is expected");
    return v;
}

std::string Converter::out_blob(const pb::NodeDef& n, int k)
{
    const std::string base = k == 0 ? n.name() : n.name() + ":" + std::to_string(k);
    return g.unique_blob_name(base);
}

void Converter::set_output(const pb::NodeDef& n, int k, const Value& v)
{
    values[n.name() + ":" + std::to_string(k)] = v;
    if (!v.is_const)
        blob_aliases[v.blob]++;
}

convert::Layer& Converter::add_layer(const std::string& type, const std::string& name, const std::vector<std::string>& bottoms,
                                     const std::vector<std::string>& tops)
{
    return g.add(type, name, bottoms, tops);
}

// --- shared emitters -----------------------------------------------------

std::string Converter::to_source_order(const Value& v, const std::string& name)
{
    if (!order_differs(v.shape))
        return v.blob;
    const std::string top = g.unique_blob_name(v.blob + "_nhwc");
    emit(convert::PermuteSpec::order(PERMUTE_CHW_TO_HWC), name + "_to_nhwc", {v.blob}, {top});
    return top;
}

Value Converter::emit_reshape(const Value& v, const Shape& target, const std::string& name, const std::string& top)
{
    if (shape_count(v.shape) != shape_count(target))
        throw ConvertError("reshape of " + shape_string(v.shape) + " to " + shape_string(target) + " changes the element count");
    std::vector<int> src_k = order_differs(v.shape) ? source_kdims(v.shape) : kdims(v.shape);
    const std::string src = to_source_order(v, name);
    kshapes[src] = std::vector<int64_t>(src_k.begin(), src_k.end());
    if (order_differs(target))
    {
        const std::vector<int> mid_k = source_kdims(target);
        std::string mid = src;
        if (mid_k != src_k)
        {
            mid = g.unique_blob_name(top + "_nhwc");
            set_shape_params(add_layer("Reshape", name, {src}, {mid}), mid_k);
        }
        emit(convert::PermuteSpec::order(PERMUTE_HWC_TO_CHW), name + "_to_nchw", {mid}, {top});
        return blob_value(top, target);
    }
    const std::vector<int> k = kdims(target);
    if (k == src_k && src == v.blob)
        return blob_value(v.blob, target);
    set_shape_params(add_layer("Reshape", name, {src}, {top}), k);
    return blob_value(top, target);
}

Value Converter::expand_rank(const Value& v, size_t rank, const std::string& name)
{
    if (v.shape.size() >= rank)
        return v;
    Shape s(rank - v.shape.size(), 1);
    s.insert(s.end(), v.shape.begin(), v.shape.end());
    return emit_reshape(v, s, name + "_expand", g.unique_blob_name(v.blob + "_expand"));
}

std::string Converter::emit_memorydata(const Const& c0, size_t rank, const std::string& name)
{
    Shape s(rank > c0.shape.size() ? rank - c0.shape.size() : 0, 1);
    s.insert(s.end(), c0.shape.begin(), c0.shape.end());
    Const c = c0;
    c.shape = s;
    if (rank == 4)
        c = const_transpose(c, {0, 3, 1, 2});
    std::vector<int> k;
    if (rank == 1)
    {
        k = {checked_int(c.count())};
    }
    else
    {
        if (s.size() != rank || s[0] != 1)
            throw Unsupported("constant operand of shape " + shape_string(c0.shape) + " against a rank " + std::to_string(rank)
                              + " activation");
        for (size_t i = 1; i < c.shape.size(); i++)
            k.push_back(checked_int(c.shape[i]));
    }
    const std::string top = g.unique_blob_name(name + "_const");
    convert::Layer& l = add_layer("MemoryData", top, {}, {top});
    set_shape_params(l, k);
    l.weights.push_back(convert::Weight(c.floats(), false));
    return top;
}

// per-channel vector (length C) of a constant broadcast along the last axis
// of a rank-`rank` activation with C channels; false if it varies elsewhere
static bool per_channel(const Const& c, size_t rank, int64_t channels, std::vector<float>& out)
{
    if (c.shape.size() > rank)
        return false;
    for (size_t i = 0; i + 1 < c.shape.size(); i++)
        if (c.shape[i] != 1)
            return false;
    const int64_t last = c.shape.empty() ? 1 : c.shape.back();
    if (last != 1 && last != channels)
        return false;
    out.resize((size_t)channels);
    for (int64_t i = 0; i < channels; i++)
        out[(size_t)i] = (float)c.v[last == 1 ? 0 : (size_t)i];
    return true;
}

bool Converter::foldable(const Value& x, const std::string& key)
{
    if (x.is_const || consumers[key] != 1 || blob_aliases[x.blob] != 1)
        return false;
    auto it = blob_layer.find(x.blob);
    if (it == blob_layer.end())
        return false;
    const convert::Layer& l = g.layers[(size_t)it->second];
    return l.params.get_int(Convolution::PARAM_ACTIVATION_TYPE, 0) == 0;
}

bool Converter::try_fold_affine(const pb::NodeDef& n, const Value& x, const std::string& key, const Const* scale,
                                const Const* bias, bool negate_bias)
{
    if (!foldable(x, key))
        return false;
    const int li = blob_layer[x.blob];
    convert::Layer& l = g.layers[(size_t)li];
    // the bias flag of the conv-like layer; channels: num_output / scale size (id 0 in all)
    static_assert((int)Convolution::PARAM_NUM_OUTPUT == (int)InnerProduct::PARAM_NUM_OUTPUT
                      && (int)Convolution::PARAM_NUM_OUTPUT == (int)Scale::PARAM_SCALE_DATA_SIZE
                      && (int)InnerProduct::PARAM_BIAS_TERM == (int)Scale::PARAM_BIAS_TERM,
                  "conv-like ids differ");
    const int bias_id = l.type == "InnerProduct" || l.type == "Scale" ? (int)InnerProduct::PARAM_BIAS_TERM
                                                                      : (int)Convolution::PARAM_BIAS_TERM;
    const int channels = l.params.get_int(Convolution::PARAM_NUM_OUTPUT, 0);
    std::vector<float> s, b;
    if (scale && !per_channel(*scale, x.shape.size(), channels, s))
        return false;
    if (bias && !per_channel(*bias, x.shape.size(), channels, b))
        return false;
    if (l.params.get_int(bias_id, 0) == 0)
    {
        l.params.set(bias_id, 1);
        l.weights.push_back(convert::Weight(std::vector<float>((size_t)channels, 0.f), false));
    }
    std::vector<float>& w = l.weights[0].data;
    std::vector<float>& bb = l.weights[1].data;
    const size_t per = w.size() / (size_t)channels;
    const bool values = !l.weights[0].dropped && !l.weights[1].dropped; // a probe conversion keeps sizes only
    for (int o = 0; values && o < channels; o++)
    {
        if (scale)
        {
            for (size_t k = 0; k < per; k++)
                w[(size_t)o * per + k] *= s[(size_t)o];
            bb[(size_t)o] *= s[(size_t)o];
        }
        if (bias)
            bb[(size_t)o] += negate_bias ? -b[(size_t)o] : b[(size_t)o];
    }
    blob_aliases[x.blob]--;
    set_output(n, 0, x);
    return true;
}

bool Converter::try_fold_activation(const pb::NodeDef& n, const Value& x, const std::string& key, int type,
                                    const std::vector<float>& params)
{
    if (!foldable(x, key))
        return false;
    convert::Layer& l = g.layers[(size_t)blob_layer[x.blob]];
    if (l.type == "Scale")
        return false;
    convert::set_activation(l, type, params);
    blob_aliases[x.blob]--;
    set_output(n, 0, x);
    return true;
}

bool Converter::try_scale(const pb::NodeDef& n, const Value& x, const Const& c)
{
    // a per-channel multiplier of a rank-4 (channels) or rank-2 (elements)
    // activation: a Scale layer, which a following per-channel add joins
    const size_t r = x.shape.size();
    if (r != 4 && r != 2)
        return false;
    std::vector<float> s;
    if (!per_channel(c, r, x.shape.back(), s))
        return false;
    const std::string top = out_blob(n);
    convert::ScaleSpec spec;
    spec.scale_data_size = (int)s.size();
    spec.bias_term = 0;
    convert::Layer& l = emit(spec, n.name(), {x.blob}, {top});
    l.weights.push_back(convert::Weight(s, false));
    blob_layer[top] = (int)g.layers.size() - 1;
    set_output(n, 0, blob_value(top, x.shape));
    return true;
}

const convert::Layer* Converter::producer_layer(const std::string& blob, const char* type)
{
    const int i = g.producer(blob);
    if (i < 0 || g.layers[(size_t)i].type != type)
        return nullptr;
    return &g.layers[(size_t)i];
}

bool Converter::try_hard_sigmoid(const pb::NodeDef& n, const Value& x, double scale)
{
    // relu6(a + 3) * (1/6) as emitted: Clip(0, 6) <- BinaryOp(add scalar 3) <- a
    if (std::fabs(scale - 1.0 / 6) > 1e-6)
        return false;
    const convert::Layer* clip = producer_layer(x.blob, "Clip");
    if (!clip || clip->params.get_float(Clip::PARAM_MIN, 1.f) != 0.f || clip->params.get_float(Clip::PARAM_MAX, 0.f) != 6.f)
        return false;
    const convert::Layer* add = producer_layer(clip->bottoms[0], "BinaryOp");
    if (!add || add->params.get_int(BinaryOp::PARAM_OP_TYPE, -1) != BinaryOp::Operation_ADD
        || add->params.get_int(BinaryOp::PARAM_WITH_SCALAR, 0) != 1 || add->params.get_float(BinaryOp::PARAM_B, 0.f) != 3.f)
        return false;
    const std::string a = add->bottoms[0];
    const std::string top = out_blob(n);
    convert::HardSigmoidSpec hs;
    hs.alpha = 1.f / 6;
    hs.beta = 0.5f;
    emit(hs, n.name(), {a}, {top});
    set_output(n, 0, blob_value(top, x.shape));
    return true;
}

bool Converter::try_hard_swish(const pb::NodeDef& n, const Value& a, const Value& b)
{
    // a * HardSigmoid(a) -> HardSwish(a) (same alpha, beta)
    for (int side = 0; side < 2; side++)
    {
        const Value& x = side ? b : a;
        const Value& h = side ? a : b;
        const convert::Layer* hs = producer_layer(h.blob, "HardSigmoid");
        if (!hs || hs->bottoms[0] != x.blob)
            continue;
        // read before add_layer: it may move the layers
        const float alpha = hs->params.get_float(HardSigmoid::PARAM_ALPHA, 0.2f);
        const float beta = hs->params.get_float(HardSigmoid::PARAM_BETA, 0.5f);
        const std::string top = out_blob(n);
        convert::HardSigmoidSpec sw;
        sw.type = "HardSwish"; // reads the same (alpha, beta)
        sw.alpha = alpha;
        sw.beta = beta;
        emit(sw, n.name(), {x.blob}, {top});
        set_output(n, 0, blob_value(top, x.shape));
        return true;
    }
    return false;
}

// --- the walk ------------------------------------------------------------

void Converter::add_placeholder(const pb::NodeDef& n, size_t index)
{
    Shape s;
    const pb::AttrValue* a = attr(n, "shape");
    const bool declared = a && a->value_case() == pb::AttrValue::kShape && !a->shape().unknown_rank();
    const DataFormat fmt = index < opt.input_formats.size() ? opt.input_formats[index] : FORMAT_NHWC;
    if (index < opt.input_shapes.size() && !opt.input_shapes[index].empty())
    {
        s = opt.input_shapes[index];
        // refuse at once a shape that does not fit the model's input
        if (declared)
        {
            const Shape decl = shape_from_proto(a->shape());
            if (decl.size() != s.size())
                fail("input", n.name(), n.op(),
                     "input_shapes gives " + shape_string(s) + " (rank " + std::to_string(s.size()) + "), the model declares "
                         + shape_string(decl) + " (rank " + std::to_string(decl.size()) + ")");
            for (size_t i = 0; i < s.size(); i++)
                if (decl[i] > 0 && decl[i] != s[i] && !opt.probe)
                    fail("input", n.name(), n.op(),
                         "input_shapes gives " + shape_string(s) + ", the model declares " + shape_string(decl) + " (dimension "
                             + std::to_string(i) + " is fixed to " + std::to_string(decl[i]) + ")");
        }
    }
    else
    {
        if (!declared)
            throw ConvertError("input '" + n.name() + "' has no shape: give input_shapes=");
        s = shape_from_proto(a->shape());
    }
    if (fmt == FORMAT_NCHW && s.size() != 4)
        fail("input", n.name(), n.op(), "input_formats says NCHW for a rank-" + std::to_string(s.size()) + " input " + shape_string(s));
    if (s.size() >= 2 && s[0] == -1)
        s[0] = 1;
    if (s.size() > 8)
        throw ConvertError("input '" + n.name() + "' has rank " + std::to_string(s.size()));
    for (int64_t d : s)
        if (d <= 0 || d > INT_MAX)
            throw ConvertError("input '" + n.name() + "' has shape " + shape_string(s) + ": give input_shapes= with every dimension");
    input_shapes.push_back(std::make_pair(n.name(), s));
    if (s.size() == 4 && fmt != FORMAT_NCHW)
    {
        Value src = blob_value(n.name(), s);
        convert::Layer& in = g.add_input(n.name());
        set_shape_params(in, source_kdims(s));
        // the Input blob holds HWC (as given); the graph runs on CHW
        Value v;
        if (order_differs(s))
        {
            const std::string top = g.unique_blob_name(n.name() + "_nchw");
            emit(convert::PermuteSpec::order(PERMUTE_HWC_TO_CHW), n.name() + "_to_nchw", {n.name()}, {top});
            v = blob_value(top, s);
        }
        else if (source_kdims(s) != kdims(s))
        {
            const std::string top = g.unique_blob_name(n.name() + "_nchw");
            set_shape_params(add_layer("Reshape", n.name() + "_to_nchw", {n.name()}, {top}), kdims(s));
            v = blob_value(top, s);
        }
        else
        {
            v = src;
        }
        set_output(n, 0, v);
        return;
    }
    convert::Layer& in = g.add_input(n.name());
    set_shape_params(in, kdims(s));
    set_output(n, 0, blob_value(n.name(), s));
}

void Converter::rename_blob(const std::string& from, const std::string& to)
{
    g.rename_blob(from, to);
    for (auto& kv : values)
        if (!kv.second.is_const && kv.second.blob == from)
            kv.second.blob = to;
    auto it = blob_layer.find(from);
    if (it != blob_layer.end())
    {
        blob_layer[to] = it->second;
        blob_layer.erase(it);
    }
}

std::string Converter::finish_output(const std::string& key, DataFormat fmt)
{
    auto it = values.find(key);
    if (it == values.end())
        throw ConvertError("output '" + key + "' was not converted");
    const Value v = it->second;
    if (v.is_const)
        throw ConvertError("output '" + key + "' is a constant");
    const std::string name = key.size() > 2 && key.compare(key.size() - 2, 2, ":0") == 0 ? key.substr(0, key.size() - 2) : key;
    const bool to_nhwc = v.shape.size() == 4 && fmt != FORMAT_NCHW && source_kdims(v.shape) != kdims(v.shape);
    if (!to_nhwc)
    {
        if (v.blob != name)
        {
            if (g.producer(name) >= 0)
                rename_blob(name, g.unique_blob_name(name + "_"));
            rename_blob(v.blob, name);
        }
        return name;
    }
    if (v.blob == name || g.producer(name) >= 0)
        rename_blob(name, g.unique_blob_name(name + "_nchw"));
    const Value cur = values[key];
    if (order_differs(v.shape))
        emit(convert::PermuteSpec::order(PERMUTE_CHW_TO_HWC), name + "_to_nhwc", {cur.blob}, {name});
    else
        set_shape_params(add_layer("Reshape", name + "_to_nhwc", {cur.blob}, {name}), source_kdims(v.shape));
    return name;
}

// the tensor index of output `arg`:`idx` of a node of type `op` inside a
// function body ("node:arg:idx"); ops with several output args listed
static int function_output_index(const std::string& op, const std::string& arg, int idx)
{
    if (op.compare(0, 14, "FusedBatchNorm") == 0)
    {
        static const char* const names[] = {"y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2", "reserve_space_3"};
        for (int i = 0; i < 6; i++)
            if (arg == names[i])
                return i + idx;
    }
    return idx;
}

// PartitionedCall / StatefulPartitionedCall (nested) replaced by the
// function's body: body nodes are named "<call>/<node>", the function's
// arguments become the call's inputs, and an IdentityN named like the call
// carries the function's results, so "call:i" still names result i
static void inline_function_calls(pb::GraphDef& gd)
{
    if (gd.library().function_size() == 0)
        return;
    std::map<std::string, pb::FunctionDef*> lib;
    for (pb::FunctionDef& f : *gd.mutable_library()->mutable_function())
        lib[f.signature().name()] = &f;
    auto callee = [&](const pb::NodeDef& n) -> std::string {
        const bool call = n.op() == "PartitionedCall" || n.op() == "StatefulPartitionedCall";
        auto fa = n.attr().find("f");
        if (!call || fa == n.attr().end() || fa->second.value_case() != pb::AttrValue::kFunc || !lib.count(fa->second.func().name()))
            return std::string();
        return fa->second.func().name();
    };
    // how many times each function's body is expanded: a body expanded once
    // is moved into the graph, not copied (Keras 3 keeps layers' constants
    // there; a copy held them twice)
    std::map<std::string, std::vector<std::string> > callers; // function -> the function of each call site ("" : the graph)
    for (const pb::NodeDef& n : gd.node())
        if (!callee(n).empty())
            callers[callee(n)].push_back(std::string());
    for (const auto& kv : lib)
        for (const pb::NodeDef& b : kv.second->node_def())
            if (!callee(b).empty())
                callers[callee(b)].push_back(kv.first);
    std::map<std::string, long> expansions;
    std::function<long(const std::string&, int)> count = [&](const std::string& fn, int depth) -> long {
        if (fn.empty())
            return 1;
        if (depth > 32)
            return 2; // recursive: never moved (expand reports the nesting)
        auto e = expansions.find(fn);
        if (e != expansions.end())
            return e->second;
        long c = 0;
        for (const std::string& caller : callers[fn])
            c = std::min(c + count(caller, depth + 1), 2L);
        expansions[fn] = c;
        return c;
    };
    google::protobuf::RepeatedPtrField<pb::NodeDef> out;
    std::function<void(pb::NodeDef&, int)> expand = [&](pb::NodeDef& n, int depth) {
        const std::string fn = callee(n);
        if (fn.empty())
        {
            out.Add()->Swap(&n);
            return;
        }
        if (depth > 32)
            fail("node", n.name(), n.op(), "function calls nest deeper than 32 (recursive?)");
        pb::FunctionDef& f = *lib[fn];
        const bool move_body = count(fn, 0) == 1;
        const std::string pre = n.name() + "/";
        std::map<std::string, std::string> args; // argument name -> the call's input
        std::vector<std::string> data_in;
        for (const std::string& in : n.input())
            if (in.empty() || in[0] != '^')
                data_in.push_back(in);
        if ((int)data_in.size() != f.signature().input_arg_size())
            fail("node", n.name(), n.op(), "passes " + std::to_string(data_in.size()) + " inputs to '" + f.signature().name() + "', which takes "
                                               + std::to_string(f.signature().input_arg_size()));
        for (int i = 0; i < f.signature().input_arg_size(); i++)
            args[f.signature().input_arg(i).name()] = data_in[(size_t)i];
        std::map<std::string, std::string> body_op;
        for (const pb::NodeDef& b : f.node_def())
            body_op[b.name()] = b.op();
        // "arg" or "node:out_arg:idx" inside the body -> a tensor name of the graph
        auto resolve = [&](const std::string& s) -> std::string {
            if (!s.empty() && s[0] == '^')
            {
                const std::string c = s.substr(1);
                return args.count(c) ? std::string() : "^" + pre + c;
            }
            auto a = args.find(s);
            if (a != args.end())
                return a->second;
            const size_t p1 = s.find(':');
            if (p1 == std::string::npos)
                return pre + s;
            const std::string node = s.substr(0, p1);
            const size_t p2 = s.find(':', p1 + 1);
            const std::string arg = s.substr(p1 + 1, p2 == std::string::npos ? std::string::npos : p2 - p1 - 1);
            const int idx = p2 == std::string::npos ? 0 : std::atoi(s.c_str() + p2 + 1);
            const int k = function_output_index(body_op.count(node) ? body_op[node] : std::string(), arg, idx);
            return pre + node + (k ? ":" + std::to_string(k) : std::string());
        };
        for (pb::NodeDef& b : *f.mutable_node_def())
        {
            pb::NodeDef c;
            if (move_body)
                c.Swap(&b);
            else
                c = b;
            const std::vector<std::string> ins(c.input().begin(), c.input().end());
            c.set_name(pre + c.name());
            c.clear_input();
            for (const std::string& in : ins)
            {
                const std::string r = resolve(in);
                if (!r.empty())
                    c.add_input(r);
            }
            expand(c, depth + 1);
        }
        pb::NodeDef results;
        results.set_name(n.name());
        results.set_op("IdentityN");
        for (const pb::ArgDef& o : f.signature().output_arg())
        {
            auto r = f.ret().find(o.name());
            if (r == f.ret().end())
                fail("node", n.name(), n.op(), "function '" + f.signature().name() + "' returns no '" + o.name() + "'");
            results.add_input(resolve(r->second));
        }
        *out.Add() = results;
    };
    for (pb::NodeDef& n : *gd.mutable_node())
        expand(n, 0);
    gd.mutable_node()->Swap(&out);
    gd.clear_library();
}

// `bytes` parsed as a GraphDef with its function calls inlined; the bytes are
// released once parsed (the file's size is not held twice)
static int prepare_graphdef(pb::GraphDef& gd, std::string& error);

static int parse_graphdef(std::string& bytes, pb::GraphDef& gd, std::string& error)
{
    if (bytes.empty())
    {
        error = "empty file";
        return -1;
    }
    const bool parsed = bytes.size() <= (size_t)INT_MAX && gd.ParseFromArray(bytes.data(), (int)bytes.size());
    std::string().swap(bytes);
    if (!parsed)
    {
        error = "not a TensorFlow GraphDef (malformed or truncated protobuf)";
        return -1;
    }
    return prepare_graphdef(gd, error);
}

// a parsed GraphDef checked and its function calls inlined
static int prepare_graphdef(pb::GraphDef& gd, std::string& error)
{
    if (gd.node_size() == 0)
    {
        error = "the GraphDef has no nodes";
        return -1;
    }
    try
    {
        inline_function_calls(gd);
    }
    catch (const ConvertError& e)
    {
        error = e.what();
        return -1;
    }
    return 0;
}

int Converter::run(const pb::GraphDef& gd, std::vector<std::string>& output_names, std::string& error)
{
    std::vector<std::string> placeholders;
    for (const pb::NodeDef& n : gd.node())
    {
        if (n.name().empty() || !nodes.emplace(n.name(), &n).second)
        {
            error = "node name '" + n.name() + "' is empty or used twice";
            return -1;
        }
        if (n.op() == "Placeholder")
            placeholders.push_back(n.name());
    }
    std::set<std::string> consumed_nodes;
    for (const pb::NodeDef& n : gd.node())
    {
        std::vector<std::string>& ins = data_inputs[n.name()];
        for (const std::string& in : n.input())
        {
            if (in.empty() || in[0] == '^')
                continue;
            const std::string key = tensor_key(in);
            if (!nodes.count(key_node(key)))
            {
                error = "node '" + n.name() + "' reads '" + in + "', which no node produces";
                return -1;
            }
            ins.push_back(key);
            consumers[key]++;
            consumed_nodes.insert(key_node(key));
        }
    }
    // outputs
    std::vector<std::string> out_keys;
    for (const std::string& o : opt.outputs)
    {
        out_keys.push_back(tensor_key(o));
        if (!nodes.count(key_node(out_keys.back())))
        {
            error = "output '" + o + "' is not a node of the graph";
            return -1;
        }
    }
    if (out_keys.empty())
    {
        for (const pb::NodeDef& n : gd.node())
            if (!consumed_nodes.count(n.name()) && n.op() != "NoOp" && n.op() != "Const" && n.op() != "Placeholder")
                out_keys.push_back(n.name() + ":0");
        if (out_keys.empty())
        {
            error = "the graph has no output (give outputs=)";
            return -1;
        }
    }
    // inputs
    std::vector<std::string> in_names = opt.inputs.empty() ? placeholders : opt.inputs;
    if (opt.input_shapes.size() > in_names.size() || opt.input_formats.size() > in_names.size())
    {
        error = "input_shapes / input_formats give " + std::to_string(std::max(opt.input_shapes.size(), opt.input_formats.size()))
                + " entries for " + std::to_string(in_names.size()) + " input(s)";
        return -1;
    }
    for (size_t i = 0; i < in_names.size(); i++)
    {
        auto it = nodes.find(key_node(tensor_key(in_names[i])));
        if (it == nodes.end())
        {
            error = "input '" + in_names[i] + "' is not a node of the graph";
            return -1;
        }
        try
        {
            add_placeholder(*it->second, i);
        }
        catch (const std::exception& e)
        {
            error = e.what();
            return -1;
        }
    }
    if (inputs_only)
        return 0;
    // topological order of the nodes the outputs need (iterative DFS)
    std::vector<const pb::NodeDef*> order;
    std::map<std::string, int> state; // 1 visiting, 2 done
    for (const std::string& ok : out_keys)
    {
        std::vector<std::pair<const pb::NodeDef*, size_t> > stack;
        const std::string root = key_node(ok);
        if (state[root])
            continue;
        stack.push_back(std::make_pair(nodes[root], (size_t)0));
        state[root] = 1;
        while (!stack.empty())
        {
            const pb::NodeDef* n = stack.back().first;
            const std::vector<std::string>& ins = data_inputs[n->name()];
            size_t& next = stack.back().second;
            if (next < ins.size())
            {
                const std::string dep = key_node(ins[next++]);
                const int s = state[dep];
                if (s == 1)
                {
                    error = "the graph has a cycle through node '" + dep + "'";
                    return -1;
                }
                if (s == 0 && !values.count(dep + ":0"))
                {
                    state[dep] = 1;
                    stack.push_back(std::make_pair(nodes[dep], (size_t)0));
                }
                continue;
            }
            state[n->name()] = 2;
            order.push_back(n);
            stack.pop_back();
        }
    }
    // readers of each tensor among the nodes converted: a large constant's
    // values are released after its last reader (weights are held once, in
    // the layers, not also as the constants they came from)
    std::map<std::string, int> readers_left;
    for (const pb::NodeDef* n : order)
        for (const std::string& k : data_inputs[n->name()])
            readers_left[k]++;
    for (const std::string& k : out_keys)
        readers_left[k]++; // finish_output reads them
    std::set<std::string> failed, failed_types;
    for (const pb::NodeDef* n : order)
    {
        if (values.count(n->name() + ":0"))
            continue; // an input
        bool skip = false;
        for (const std::string& k : data_inputs[n->name()])
            if (failed.count(key_node(k)))
                skip = true;
        if (skip)
        {
            // downstream of a failed node: reported if its own type is unknown
            // or a type that failed elsewhere (every node of it is counted)
            if (!known_op(n->op()) || failed_types.count(n->op()))
                unsupported.add(n->op(), n->name());
            failed.insert(n->name());
            continue;
        }
        try
        {
            const size_t first_layer = g.layers.size();
            convert_node(*n);
            if (drop_weight_values)
                for (size_t li = first_layer; li < g.layers.size(); li++)
                    for (convert::Weight& w : g.layers[li].weights)
                        w.drop_values();
            for (const std::string& k : data_inputs[n->name()])
                if (--readers_left[k] == 0)
                    release_constant(k);
        }
        catch (const Unsupported& u)
        {
            unsupported.add(n->op(), n->name(), u.what());
            failed.insert(n->name());
            failed_types.insert(n->op());
        }
        catch (const std::exception& e)
        {
            error = "node '" + n->name() + "' (" + n->op() + "): " + e.what();
            return -1;
        }
    }
    // an Erf/Erfc value that no exact-GELU pattern consumed but a layer reads
    for (const convert::Layer& l : g.layers)
        for (const std::string& b : l.bottoms)
        {
            auto it = pending_erf.find(b);
            if (it != pending_erf.end())
                unsupported.add("Erf", it->second.node, "converted only inside exact GELU: 0.5 * x * erfc(-x / sqrt 2)");
        }
    if (!unsupported.empty())
        return 0;
    try
    {
        for (size_t i = 0; i < out_keys.size(); i++)
            output_names.push_back(finish_output(out_keys[i], i < opt.output_formats.size() ? opt.output_formats[i] : FORMAT_NHWC));
    }
    catch (const std::exception& e)
    {
        error = e.what();
        return -1;
    }
    return 0;
}

// The probe conversion runs first (it keeps gd's tensor contents and no
// weight values), then the real one, which releases each Const's content as
// it decodes it: the converter's peak stays near the file's size.
static int convert_parsed(pb::GraphDef& gd, const ConvertOptions& opt, convert::Graph& g,
                          convert::UnsupportedOps& unsupported, std::vector<std::string>& output_names, std::string& error,
                          std::string* fixed_size)
{
    std::string why = "-", at_a, at_b;
    convert::Graph gb;
    convert::BlobShapes sb;
    if (!opt.probe && fixed_size)
    {
        // the inputs' shapes at the converted size (a pass that stops there)
        std::vector<std::pair<std::string, Shape> > inputs_a;
        {
            convert::Graph g0;
            convert::UnsupportedOps u0;
            std::vector<std::string> outs0;
            std::string err0;
            Converter c(opt, g0, u0);
            c.inputs_only = true;
            if (c.run(gd, outs0, err0) == 0)
                inputs_a = c.input_shapes;
        }
        // any input size: convert at the images' height doubled and width
        // tripled; sizes that follow the input then derive from it (input_size.h)
        ConvertOptions po = opt;
        po.probe = true;
        po.input_shapes.clear();
        bool scaled = false;
        for (size_t i = 0; i < inputs_a.size(); i++)
        {
            Shape sh = inputs_a[i].second;
            at_a += (at_a.empty() ? "" : ", ") + inputs_a[i].first + convert::dims_text(sh);
            if (sh.size() == 4)
            {
                const bool nchw = i < opt.input_formats.size() && opt.input_formats[i] == FORMAT_NCHW;
                sh[nchw ? 2 : 1] *= 2;
                sh[nchw ? 3 : 2] *= 3;
                scaled = true;
            }
            at_b += (at_b.empty() ? "" : ", ") + convert::dims_text(sh);
            po.input_shapes.push_back(sh);
        }
        if (scaled)
        {
            why.clear();
            try
            {
                convert::UnsupportedOps ub;
                std::vector<std::string> outs_b;
                Converter c(po, gb, ub);
                c.drop_weight_values = true;
                if (c.run(gd, outs_b, why) == 0)
                {
                    if (!ub.empty())
                        why = ub.text();
                    sb = std::move(c.kshapes);
                }
            }
            catch (const std::exception& e)
            {
                why = e.what();
            }
        }
    }
    convert::BlobShapes shapes_a;
    {
        Converter c(opt, g, unsupported);
        c.release_tensor_content = true; // the last reader of gd
        const int ret = c.run(gd, output_names, error);
        if (ret != 0 || !unsupported.empty() || opt.probe || !fixed_size)
            return ret;
        shapes_a = std::move(c.kshapes);
    }
    if (why.empty())
        why = convert::generalize_input_size(g, shapes_a, gb, sb);
    if (!why.empty() && why != "-")
    {
        convert::mark_input_size_fixed(g); // kite refuses another size instead of computing it wrongly
        *fixed_size = "the model runs only at the converted input size " + at_a + " (at " + at_b + ": " + why + ")";
    }
    return 0;
}

int convert_graphdef(std::string bytes, const ConvertOptions& opt, convert::Graph& g,
                     convert::UnsupportedOps& unsupported, std::vector<std::string>& output_names, std::string& error,
                     std::string* fixed_size)
{
    pb::GraphDef gd;
    if (parse_graphdef(bytes, gd, error) != 0)
        return -1;
    return convert_parsed(gd, opt, g, unsupported, output_names, error, fixed_size);
}

int convert_graphdef_file(const char* path, const ConvertOptions& opt, convert::Graph& g,
                          convert::UnsupportedOps& unsupported, std::vector<std::string>& output_names, std::string& error,
                          std::string* fixed_size)
{
    pb::GraphDef gd;
    {
        // parsed in blocks: the file's bytes are never held next to the parsed graph
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
        {
            error = std::string("cannot open: ") + strerror(errno);
            return -1;
        }
        google::protobuf::io::FileInputStream file(fd, 1 << 20);
        file.SetCloseOnDelete(true);
        google::protobuf::io::CodedInputStream in(&file);
        in.SetTotalBytesLimit(INT_MAX);
        const bool parsed = gd.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
        if (file.GetErrno() != 0)
        {
            error = std::string("cannot read: ") + strerror(file.GetErrno());
            return -1;
        }
        if (!parsed || file.ByteCount() == 0)
        {
            error = file.ByteCount() == 0 ? "empty file" : "not a TensorFlow GraphDef (malformed or truncated protobuf)";
            return -1;
        }
    }
    if (prepare_graphdef(gd, error) != 0)
        return -1;
    return convert_parsed(gd, opt, g, unsupported, output_names, error, fixed_size);
}

} // namespace tf
} // namespace convert
} // namespace kite
