#include "onnx_convert.h"
#include "layer/input.h"

#include "mat.h"
#include "onnx_subset.pb.h"
#include "report.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>
#include <tuple>

namespace kite {
namespace convert {
namespace onnx {

// ---------------------------------------------------------------- tensors

size_t shape_numel(const Shape& s)
{
    // saturates instead of wrapping, so size checks on hostile shapes hold
    size_t n = 1;
    for (int64_t d : s)
    {
        if (d <= 0)
            return 0;
        if (n > ((size_t)1 << 62) / (size_t)d)
            return (size_t)1 << 62;
        n *= (size_t)d;
    }
    return n;
}

std::string shape_str(const Shape& s)
{
    return kite::convert::dims_text(s);
}

size_t Const::numel() const { return v.size(); }

bool Const::is_int() const
{
    return dtype != 1 && dtype != 10 && dtype != 11 && dtype != 16;
}

std::vector<float> Const::floats() const
{
    return std::vector<float>(v.begin(), v.end());
}

std::vector<int64_t> Const::ints() const
{
    std::vector<int64_t> r;
    r.reserve(v.size());
    for (double x : v)
    {
        if (x != x) // NaN: 0, as tflite2kite's constants
            r.push_back(0);
        else if (x >= 9.2e18)
            r.push_back(INT64_MAX);
        else if (x <= -9.2e18)
            r.push_back(INT64_MIN);
        else
            r.push_back((int64_t)x);
    }
    return r;
}

static float half_to_float(uint16_t h)
{
    return kite::float16_to_float32(h);
}

// constants of this many elements or more are decoded when first read and
// dropped after their last reader (weights); smaller ones (shape arithmetic,
// scalars) stay for the whole conversion
static const size_t kLargeConst = 4096;

// TensorProto -> Const; `what` names it in errors
static Const tensor_to_const(const TensorProto& t, const std::string& what)
{
    Const c;
    c.dtype = t.data_type();
    for (int64_t d : t.dims())
    {
        if (d < 0 || d > (1LL << 31))
            throw ConvertError("tensor '" + what + "' has an invalid dimension " + std::to_string(d));
        c.shape.push_back(d);
    }
    if (t.data_location() == 1 || t.external_data_size() > 0)
        throw ConvertError("tensor '" + what + "' keeps its data in an external file, which onnx2kite does not read");
    size_t n = 1;
    for (int64_t d : c.shape)
    {
        n *= (size_t)d;
        if (n > ((size_t)1 << 31))
            throw ConvertError("tensor '" + what + "' is too large");
    }
    static const int elem_size[17] = {0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 0, 0, 2};
    if (c.dtype <= 0 || c.dtype > 16 || elem_size[c.dtype] == 0)
        throw ConvertError("tensor '" + what + "' has data type " + std::to_string(c.dtype) + ", which onnx2kite does not handle");
    if (t.has_raw_data())
    {
        const std::string& raw = t.raw_data();
        size_t es = elem_size[c.dtype];
        if (raw.size() != n * es)
            throw ConvertError("tensor '" + what + "' raw_data holds " + std::to_string(raw.size()) + " bytes, its shape " + shape_str(c.shape) + " needs " + std::to_string(n * es));
        c.v.resize(n);
        const char* p = raw.data();
        for (size_t i = 0; i < n; i++, p += es)
        {
            switch (c.dtype)
            {
            case 1: { float x; memcpy(&x, p, 4); c.v[i] = x; break; }
            case 2: { uint8_t x; memcpy(&x, p, 1); c.v[i] = x; break; }
            case 3: { int8_t x; memcpy(&x, p, 1); c.v[i] = x; break; }
            case 4: { uint16_t x; memcpy(&x, p, 2); c.v[i] = x; break; }
            case 5: { int16_t x; memcpy(&x, p, 2); c.v[i] = x; break; }
            case 6: { int32_t x; memcpy(&x, p, 4); c.v[i] = x; break; }
            case 7: { int64_t x; memcpy(&x, p, 8); c.v[i] = (double)x; break; }
            case 9: { uint8_t x; memcpy(&x, p, 1); c.v[i] = x ? 1 : 0; break; }
            case 10: { uint16_t x; memcpy(&x, p, 2); c.v[i] = half_to_float(x); break; }
            case 11: { double x; memcpy(&x, p, 8); c.v[i] = x; break; }
            case 12: { uint32_t x; memcpy(&x, p, 4); c.v[i] = x; break; }
            case 13: { uint64_t x; memcpy(&x, p, 8); c.v[i] = (double)x; break; }
            case 16: { uint16_t x; memcpy(&x, p, 2); uint32_t b = (uint32_t)x << 16; float f; memcpy(&f, &b, 4); c.v[i] = f; break; }
            }
        }
        return c;
    }
    size_t have = c.dtype == 1 ? t.float_data_size() : c.dtype == 7 ? t.int64_data_size() : c.dtype == 11 ? t.double_data_size()
                : (c.dtype == 12 || c.dtype == 13) ? t.uint64_data_size() : t.int32_data_size();
    if (have != n)
        throw ConvertError("tensor '" + what + "' holds " + std::to_string(have) + " values, its shape " + shape_str(c.shape) + " needs " + std::to_string(n));
    c.v.resize(n);
    if (c.dtype == 1)
    {
        have = t.float_data_size();
        if (have == n)
            for (size_t i = 0; i < n; i++)
                c.v[i] = t.float_data((int)i);
    }
    else if (c.dtype == 7)
    {
        have = t.int64_data_size();
        if (have == n)
            for (size_t i = 0; i < n; i++)
                c.v[i] = (double)t.int64_data((int)i);
    }
    else if (c.dtype == 11)
    {
        have = t.double_data_size();
        if (have == n)
            for (size_t i = 0; i < n; i++)
                c.v[i] = t.double_data((int)i);
    }
    else if (c.dtype == 12 || c.dtype == 13)
    {
        have = t.uint64_data_size();
        if (have == n)
            for (size_t i = 0; i < n; i++)
                c.v[i] = (double)t.uint64_data((int)i);
    }
    else
    {
        have = t.int32_data_size();
        if (have == n)
            for (size_t i = 0; i < n; i++)
            {
                int32_t x = t.int32_data((int)i);
                if (c.dtype == 10)
                    c.v[i] = half_to_float((uint16_t)x);
                else if (c.dtype == 16)
                {
                    uint32_t b = (uint32_t)x << 16;
                    float f;
                    memcpy(&f, &b, 4);
                    c.v[i] = f;
                }
                else
                    c.v[i] = x;
            }
    }
    if (have != n)
        throw ConvertError("tensor '" + what + "' holds " + std::to_string(have) + " values, its shape " + shape_str(c.shape) + " needs " + std::to_string(n));
    return c;
}

// ---------------------------------------------------------------- node access

static const AttributeProto* find_attr(const NodeProto* n, const char* name)
{
    for (const AttributeProto& a : n->attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

bool Converter::has_attr(const char* name) const { return find_attr(node_, name) != nullptr; }

int64_t Converter::attr_i(const char* name, int64_t def) const
{
    const AttributeProto* a = find_attr(node_, name);
    return a ? a->i() : def;
}

float Converter::attr_f(const char* name, float def) const
{
    const AttributeProto* a = find_attr(node_, name);
    return a ? a->f() : def;
}

std::string Converter::attr_s(const char* name, const std::string& def) const
{
    const AttributeProto* a = find_attr(node_, name);
    return a ? a->s() : def;
}

std::vector<int64_t> Converter::attr_ints(const char* name) const
{
    const AttributeProto* a = find_attr(node_, name);
    std::vector<int64_t> r;
    if (a)
        r.assign(a->ints().begin(), a->ints().end());
    return r;
}

std::vector<float> Converter::attr_floats(const char* name) const
{
    const AttributeProto* a = find_attr(node_, name);
    std::vector<float> r;
    if (a)
        r.assign(a->floats().begin(), a->floats().end());
    return r;
}

bool Converter::attr_tensor(const char* name, Const& out) const
{
    const AttributeProto* a = find_attr(node_, name);
    if (!a || !a->has_t())
        return false;
    out = tensor_to_const(a->t(), node_desc() + " attribute " + name);
    return true;
}

int Converter::n_in() const { return node_->input_size(); }
int Converter::n_out() const { return node_->output_size(); }

const std::string& Converter::in_name(int i) const
{
    static const std::string empty;
    return i < node_->input_size() ? node_->input(i) : empty;
}

const std::string& Converter::out_name(int i) const
{
    if (i >= node_->output_size())
        fail("expects at least " + std::to_string(i + 1) + " outputs");
    return node_->output(i);
}

bool Converter::has_in(int i) const { return !in_name(i).empty(); }

bool Converter::in_const(int i) const { return has_in(i) && is_const(in_name(i)); }

const Const* Converter::find_const(const std::string& name) const
{
    auto it = consts_.find(name);
    if (it != consts_.end())
        return &it->second;
    auto lz = lazy_.find(name);
    if (lz == lazy_.end())
        return nullptr;
    TensorProto* t = lz->second;
    lazy_.erase(lz);
    Const& c = consts_[name];
    c = tensor_to_const(*t, name);
    if (free_raw_)
        std::string().swap(*t->mutable_raw_data());
    return &c;
}

const Const& Converter::cin(int i) const
{
    if (!has_in(i))
        fail("input " + std::to_string(i) + " is missing");
    const Const* c = find_const(in_name(i));
    if (!c)
        fail("input " + std::to_string(i) + " ('" + in_name(i) + "') must be a constant (an initializer or computable from one)");
    return *c;
}

const Shape& Converter::in_shape(int i) const
{
    if (!has_in(i))
        fail("input " + std::to_string(i) + " is missing");
    auto it = shapes_.find(in_name(i));
    if (it == shapes_.end())
        fail("input '" + in_name(i) + "' is not produced by any earlier node, initializer or graph input");
    return it->second;
}

Shape Converter::blob_kshape(int i) const
{
    auto it = wide_.find(in_name(i));
    return it != wide_.end() ? it->second : kshape(in_shape(i));
}

bool Converter::in_wide(int i) const
{
    return has_in(i) && wide_.count(in_name(i)) != 0;
}

std::string Converter::node_desc() const
{
    if (!node_)
        return "graph";
    return "node '" + node_->name() + "' (" + node_->op_type() + ")";
}

void Converter::fail(const std::string& why) const
{
    if (!node_)
        throw ConvertError("graph: " + why);
    convert::fail("node", node_->name(), node_->op_type(), why);
}

// ---------------------------------------------------------------- layout

std::vector<int> Converter::kept_axes(const Shape& s)
{
    std::vector<int> k;
    for (size_t i = 0; i < s.size(); i++)
        k.push_back((int)i);
    if (s.size() >= 2 && s[0] == 1)
        k.erase(k.begin());
    for (size_t i = 0; i < k.size() && k.size() > 4;)
    {
        if (s[k[i]] == 1)
            k.erase(k.begin() + i);
        else
            i++;
    }
    return k;
}

Shape Converter::kshape(const Shape& s)
{
    Shape r;
    for (int a : kept_axes(s))
        r.push_back(s[a]);
    if (r.empty())
        r.push_back(1);
    return r;
}

int64_t Converter::norm_axis(int64_t axis, size_t rank)
{
    return axis < 0 ? axis + (int64_t)rank : axis;
}

int Converter::kaxis(const Shape& s, int64_t onnx_axis) const
{
    int64_t a = norm_axis(onnx_axis, s.size());
    if (a < 0 || a >= (int64_t)s.size())
        fail("axis " + std::to_string(onnx_axis) + " is out of range for shape " + shape_str(s));
    std::vector<int> k = kept_axes(s);
    for (size_t i = 0; i < k.size(); i++)
        if (k[i] == a)
            return (int)i;
    return -1;
}

// ---------------------------------------------------------------- blobs

static std::string sanitize(const std::string& s)
{
    std::string r = s;
    for (char& ch : r)
        if ((unsigned char)ch <= ' ' || ch == '=' || ch == ',')
            ch = '_';
    if (r.empty())
        r = "_";
    return r;
}

std::string Converter::uniq(const std::string& base)
{
    return sanitize(base) + "_k" + std::to_string(counter_++);
}

KLayer& Converter::add(const std::string& type, const std::vector<std::string>& bottoms, const std::vector<std::string>& tops)
{
    return g_.add(type, uniq(node_ ? (node_->name().empty() ? node_->op_type() : node_->name()) : type), bottoms, tops);
}

// k is outermost first; kite's shape fields are w, h, d, c (Reshape, Input
// and MemoryData name them alike)
template<class Spec>
static Spec shape_spec(const Shape& k)
{
    Spec s;
    size_t r = k.size();
    if (r >= 1) s.w = (int)k[r - 1];
    if (r >= 2) s.h = (int)k[r - 2];
    if (r == 3) s.c = (int)k[0];
    if (r == 4) { s.d = (int)k[1]; s.c = (int)k[0]; }
    return s;
}

std::string Converter::reshape(const std::string& b, const Shape& from_k, const Shape& to_k)
{
    if (from_k == to_k)
        return b;
    if (to_k.size() > 4)
        fail("needs a blob of shape " + shape_str(to_k) + ", more than 4 axes");
    std::string t = uniq(b);
    emit(shape_spec<ReshapeSpec>(to_k), {b}, {t});
    kshapes_[b] = from_k;
    kshapes_[t] = to_k;
    return t;
}

std::string Converter::const_blob(const std::string& onnx_name, const Const& c, const Shape& k)
{
    if (k.size() > 4)
        fail("constant '" + onnx_name + "' needs more than 4 axes");
    if (c.v.empty())
        fail("constant '" + onnx_name + "' is empty; kite blobs cannot be empty");
    std::string t = uniq(onnx_name.empty() ? "const" : onnx_name);
    const NodeProto* saved = node_;
    KLayer& l = emit(shape_spec<MemoryDataSpec>(k), {}, {t});
    node_ = saved;
    l.weights.push_back(kite::convert::Weight(c.floats(), false));
    return t;
}

std::string Converter::blob(int i)
{
    const std::string& n = in_name(i);
    if (n.empty())
        fail("input " + std::to_string(i) + " is missing");
    auto it = blob_.find(n);
    if (it != blob_.end())
        return it->second;
    if (const Const* c = find_const(n))
    {
        std::string b = const_blob(n, *c, kshape(c->shape));
        blob_[n] = b;
        return b;
    }
    fail("input '" + n + "' is not produced by any earlier node, initializer or graph input");
}

std::string Converter::top_name(int i)
{
    return sanitize(out_name(i));
}

void Converter::set_out(int i, const Shape& onnx_shape, const std::string& b, const Shape& b_k)
{
    const std::string& n = out_name(i);
    if (n.empty())
        return;
    for (int64_t d : onnx_shape)
        if (d < 0 || d > INT_MAX)
            fail("output '" + n + "' would get an invalid dimension " + shape_str(onnx_shape));
    if (shape_numel(onnx_shape) > ((size_t)1 << 31))
        fail("output '" + n + "' of shape " + shape_str(onnx_shape) + " is too large");
    shapes_[n] = onnx_shape;
    Shape want = kshape(onnx_shape);
    if (b_k.size() <= 4)
        kshapes_[b] = b_k;
    if (b_k == want)
    {
        blob_[n] = b;
        return;
    }
    if (want.size() > 4)
    {
        // the blob keeps its <= 4-axis shape (same elements, same order)
        if (b_k.size() <= 4 && shape_numel(b_k) == shape_numel(onnx_shape))
        {
            wide_[n] = b_k;
            blob_[n] = b;
            return;
        }
        fail("output '" + n + "' of shape " + shape_str(onnx_shape) + " needs more than 4 axes");
    }
    std::string top = sanitize(n);
    std::string src = b;
    if (b == top)
    {
        // the producer wrote the final name: move it aside for the reshape
        src = uniq(n);
        for (size_t k = g_.layers.size(); k-- > 0;)
        {
            bool hit = false;
            for (std::string& t : g_.layers[k].tops)
                if (t == b)
                    t = src, hit = true;
            if (hit)
                break;
        }
    }
    else
        top = uniq(n);
    emit(shape_spec<ReshapeSpec>(want), {src}, {top});
    kshapes_[src] = b_k;
    kshapes_[top] = want;
    blob_[n] = top;
}

void Converter::set_const(int i, const Const& c)
{
    const std::string& n = out_name(i);
    if (n.empty())
        return;
    if (shape_numel(c.shape) != c.v.size())
        fail("internal: folded constant has a wrong size");
    consts_[n] = c;
    shapes_[n] = c.shape;
}

// ---------------------------------------------------------------- driver

static std::map<std::string, std::vector<int>> node_users(const GraphProto& g)
{
    std::map<std::string, std::vector<int>> users;
    for (int i = 0; i < g.node_size(); i++)
        for (const std::string& in : g.node(i).input())
            users[in].push_back(i);
    return users;
}

static void drop_nodes(GraphProto& g, const std::set<int>& dead)
{
    if (dead.empty())
        return;
    GraphProto rest;
    for (int i = 0; i < g.node_size(); i++)
        if (!dead.count(i))
            *rest.add_node() = g.node(i);
    g.mutable_node()->Swap(rest.mutable_node());
}

// x / 1.4142135 -> Erf -> + 1 -> * x -> * 0.5 (and orders of the muls) as torch
// exports GELU before opset 20: returns the nodes replaced by one Gelu node.
static void fuse_gelu(GraphProto& g, const std::map<std::string, Const>& consts)
{
    std::map<std::string, std::vector<int>> users = node_users(g);
    auto scalar_is = [&](const std::string& name, double v) {
        auto it = consts.find(name);
        return it != consts.end() && it->second.v.size() == 1 && std::fabs(it->second.v[0] - v) < 1e-4 * std::fabs(v);
    };
    // the one node of `type` reading `out`, with exactly `nin` inputs and one output
    auto only_user = [&](const std::string& out, const char* type, int nin) -> int {
        auto it = users.find(out);
        if (it == users.end() || it->second.size() != 1)
            return -1;
        const NodeProto& u = g.node(it->second[0]);
        if (u.op_type() != type || u.input_size() != nin || u.output_size() < 1)
            return -1;
        return it->second[0];
    };
    std::set<int> dead;
    for (int i = 0; i < g.node_size(); i++)
    {
        const NodeProto& div = g.node(i);
        if (div.op_type() != "Div" || div.input_size() != 2 || div.output_size() < 1
            || !scalar_is(div.input(1), 1.4142135623730951))
            continue;
        const std::string x = div.input(0);
        int erf = only_user(div.output(0), "Erf", 1);
        if (erf < 0) continue;
        int addn = only_user(g.node(erf).output(0), "Add", 2);
        if (addn < 0) continue;
        const NodeProto& add = g.node(addn);
        std::string other = add.input(0) == g.node(erf).output(0) ? add.input(1) : add.input(0);
        if (!scalar_is(other, 1.0)) continue;
        int m1 = only_user(add.output(0), "Mul", 2);
        if (m1 < 0) continue;
        const NodeProto& mul1 = g.node(m1);
        std::string o1 = mul1.input(0) == add.output(0) ? mul1.input(1) : mul1.input(0);
        int m2 = only_user(mul1.output(0), "Mul", 2);
        if (m2 < 0) continue;
        const NodeProto& mul2 = g.node(m2);
        std::string o2 = mul2.input(0) == mul1.output(0) ? mul2.input(1) : mul2.input(0);
        // (1+erf) * x * 0.5  or  (1+erf) * 0.5 * x
        if (!((o1 == x && scalar_is(o2, 0.5)) || (scalar_is(o1, 0.5) && o2 == x)))
            continue;
        NodeProto* last = g.mutable_node(m2);
        std::string out = last->output(0);
        std::string name = last->name();
        last->Clear();
        last->set_op_type("Gelu");
        last->set_name(name.empty() ? "gelu" : name);
        last->add_input(x);
        last->add_output(out);
        dead.insert(i);
        dead.insert(erf);
        dead.insert(addn);
        dead.insert(m1);
    }
    drop_nodes(g, dead);
}

// Sigmoid(x) read only by Mul(x, .) -> one Swish node (torch's SiLU export)
// Einsum of two operands written as a batched matrix product ("...ik,...kj->...ij"
// or with the second operand's matrix transposed, "...ik,...jk->...ij", the
// same batch letters everywhere; spaces ignored: torchvision maxvit_t's
// attention, "B G H I D, B G H J D -> B G H I J") becomes MatMul, after a
// Transpose of the second operand's last two axes for the second form. Other
// equations stay Einsum and are reported unsupported.
static bool einsum_as_matmul(const std::string& equation, bool& transpose_b)
{
    std::string eq;
    for (char ch : equation)
        if (ch != ' ')
            eq += ch;
    const size_t arrow = eq.find("->"), comma = eq.find(',');
    if (arrow == std::string::npos || comma == std::string::npos || comma > arrow)
        return false;
    const std::string a = eq.substr(0, comma), b = eq.substr(comma + 1, arrow - comma - 1), o = eq.substr(arrow + 2);
    if (a.size() < 2 || a.size() != b.size() || a.size() != o.size() || b.find(',') != std::string::npos)
        return false;
    const size_t n = a.size();
    const std::string batch = a.substr(0, n - 2);
    if (b.compare(0, n - 2, batch) != 0 || o.compare(0, n - 2, batch) != 0)
        return false;
    std::string letters = a + b.substr(n - 2) + o.substr(n - 2);
    for (char ch : letters)
        if (!isalpha((unsigned char)ch))
            return false;
    const char i = a[n - 2], k = a[n - 1];
    std::set<char> seen(batch.begin(), batch.end());
    if (seen.size() != batch.size())
        return false; // a repeated batch letter (a diagonal)
    char j;
    if (b[n - 2] == k)
        j = b[n - 1], transpose_b = false;
    else if (b[n - 1] == k)
        j = b[n - 2], transpose_b = true;
    else
        return false;
    if (o[n - 2] != i || o[n - 1] != j || i == k || j == k || i == j || seen.count(i) || seen.count(j) || seen.count(k))
        return false;
    return true;
}

static void rewrite_einsum(GraphProto& g)
{
    bool any = false;
    for (const NodeProto& n : g.node())
        any = any || n.op_type() == "Einsum";
    if (!any)
        return;
    google::protobuf::RepeatedPtrField<NodeProto> out;
    for (NodeProto& n : *g.mutable_node())
    {
        std::string equation;
        for (const AttributeProto& a : n.attribute())
            if (a.name() == "equation")
                equation = a.s();
        bool transpose_b = false;
        if (n.op_type() != "Einsum" || n.input_size() != 2 || n.output_size() != 1 || !n.domain().empty()
            || !einsum_as_matmul(equation, transpose_b))
        {
            out.Add()->Swap(&n);
            continue;
        }
        std::string eq;
        for (char ch : equation)
            if (ch != ' ')
                eq += ch;
        const int rank = (int)eq.find(',');
        if (transpose_b)
        {
            NodeProto* t = out.Add();
            t->set_op_type("Transpose");
            t->set_name(n.name() + "_transpose_b");
            t->add_input(n.input(1));
            t->add_output(n.name() + "_b_t");
            AttributeProto* perm = t->add_attribute();
            perm->set_name("perm");
            perm->set_type(7); // AttributeProto.INTS (onnx.proto)
            for (int ax = 0; ax < rank; ax++)
                perm->add_ints(ax < rank - 2 ? ax : (ax == rank - 2 ? rank - 1 : rank - 2));
            n.set_input(1, t->output(0));
        }
        n.set_op_type("MatMul");
        n.clear_attribute();
        out.Add()->Swap(&n);
    }
    g.mutable_node()->Swap(&out);
}

static void fuse_swish(GraphProto& g)
{
    std::map<std::string, std::vector<int>> users = node_users(g);
    std::set<int> dead;
    for (int i = 0; i < g.node_size(); i++)
    {
        const NodeProto& sig = g.node(i);
        if (sig.op_type() != "Sigmoid" || sig.input_size() != 1 || sig.output_size() != 1)
            continue;
        auto it = users.find(sig.output(0));
        if (it == users.end() || it->second.size() != 1)
            continue;
        NodeProto* mul = g.mutable_node(it->second[0]);
        if (mul->op_type() != "Mul" || mul->input_size() != 2)
            continue;
        const std::string& x = sig.input(0);
        if (!((mul->input(0) == x && mul->input(1) == sig.output(0)) || (mul->input(1) == x && mul->input(0) == sig.output(0))))
            continue;
        mul->set_op_type("Swish");
        mul->clear_input();
        mul->add_input(x);
        dead.insert(i);
    }
    drop_nodes(g, dead);
}

// Model-local functions (ModelProto.functions, written by torch's dynamo
// exporter): each call is replaced by the function's body. Names inside a
// body get a per-call prefix, the formal inputs/outputs become the call's
// actual ones, attributes that refer to the caller's (ref_attr_name) take its
// value or the function's default, and nested calls are expanded the same way.
static void inline_functions(const ModelProto& m, GraphProto& g, int* inlined)
{
    if (m.functions_size() == 0)
        return;
    typedef std::tuple<std::string, std::string, std::string> Key; // domain, name, overload
    std::map<Key, const FunctionProto*> fn;
    for (const FunctionProto& f : m.functions())
        fn[Key(f.domain(), f.name(), f.overload())] = &f;
    int counter = 0;
    google::protobuf::RepeatedPtrField<NodeProto> out;
    std::function<void(const NodeProto&, int)> expand = [&](const NodeProto& n, int depth) {
        auto it = fn.find(Key(n.domain(), n.op_type(), n.overload()));
        if (it == fn.end())
        {
            *out.Add() = n;
            return;
        }
        const FunctionProto& f = *it->second;
        if (depth > 64)
            convert::fail("node", n.name(), n.op_type(), "local function calls nest deeper than 64 (recursive?)");
        if (inlined)
            (*inlined)++;
        const std::string pre = (n.name().empty() ? f.name() : n.name()) + "/" + std::to_string(counter++) + "/";
        std::map<std::string, std::string> ren;
        for (int i = 0; i < f.input_size(); i++)
            ren[f.input(i)] = i < n.input_size() ? n.input(i) : std::string();
        for (int i = 0; i < f.output_size(); i++)
            ren[f.output(i)] = i < n.output_size() && !n.output(i).empty() ? n.output(i) : pre + f.output(i);
        std::map<std::string, const AttributeProto*> given, defaults;
        for (const AttributeProto& a : n.attribute())
            given[a.name()] = &a;
        for (const AttributeProto& a : f.attribute_proto())
            defaults[a.name()] = &a;
        auto name_of = [&](const std::string& s) {
            if (s.empty())
                return s;
            auto r = ren.find(s);
            return r != ren.end() ? r->second : pre + s;
        };
        for (const NodeProto& b : f.node())
        {
            NodeProto c = b;
            for (int i = 0; i < c.input_size(); i++)
                c.set_input(i, name_of(c.input(i)));
            for (int i = 0; i < c.output_size(); i++)
                c.set_output(i, name_of(c.output(i)));
            c.set_name(pre + (b.name().empty() ? b.op_type() + "_" + std::to_string(counter++) : b.name()));
            c.clear_attribute();
            for (const AttributeProto& a : b.attribute())
            {
                if (a.ref_attr_name().empty())
                {
                    *c.add_attribute() = a;
                    continue;
                }
                auto g1 = given.find(a.ref_attr_name());
                const AttributeProto* v = g1 != given.end() ? g1->second : nullptr;
                if (!v)
                {
                    auto d = defaults.find(a.ref_attr_name());
                    v = d != defaults.end() ? d->second : nullptr;
                }
                if (v)
                {
                    AttributeProto* na = c.add_attribute();
                    *na = *v;
                    na->set_name(a.name());
                }
            }
            expand(c, depth + 1);
        }
    };
    for (const NodeProto& n : g.node())
        expand(n, 0);
    g.mutable_node()->Swap(&out);
}

bool Converter::reevaluate(const std::string& name, const std::map<std::string, Shape>& shapes, Const& out, std::set<std::string>* leaves) const
{
    if (!graph_)
        return false;
    // the nodes `name` derives from, back to constants and Shape nodes
    std::set<int> need;
    std::set<std::string> seen;
    std::vector<std::string> stack{name};
    while (!stack.empty())
    {
        const std::string t = stack.back();
        stack.pop_back();
        if (t.empty() || !seen.insert(t).second)
            continue;
        auto it = producer_.find(t);
        if (it == producer_.end())
        {
            if (is_const(t))
                continue; // an initializer
            return false;
        }
        need.insert(it->second);
        if (need.size() > 4096)
            return false;
        const NodeProto& n = graph_->node(it->second);
        if ((n.op_type() == "Shape" || n.op_type() == "Size") && n.input_size() == 1)
        {
            if (!shapes_.count(n.input(0)))
                return false;
            if (leaves)
                leaves->insert(n.input(0));
            continue;
        }
        for (const std::string& in : n.input())
            stack.push_back(in);
    }
    if (need.size() > reevaluate_budget_)
        return false;
    reevaluate_budget_ -= need.size();
    try
    {
        Converter ev(opt_);
        ev.opset_ = opset_;
        for (int i : need)
        {
            const NodeProto& n = graph_->node(i);
            const bool shape_node = n.op_type() == "Shape" || n.op_type() == "Size";
            for (const std::string& in : n.input())
            {
                if (in.empty() || ev.shapes_.count(in))
                    continue;
                if (shape_node)
                {
                    auto o = shapes.find(in);
                    ev.shapes_[in] = o != shapes.end() ? o->second : shapes_.at(in);
                }
                else if (!producer_.count(in))
                {
                    const Const* c = find_const(in);
                    if (!c)
                        return false;
                    ev.consts_[in] = *c;
                    ev.shapes_[in] = c->shape;
                }
            }
            ev.node_ = &n;
            if (!ev.fold())
                return false;
        }
        const Const* c = ev.find_const(name);
        if (!c)
            return false;
        out = *c;
        return true;
    }
    catch (const ConvertError&)
    {
        return false;
    }
}

void Converter::convert(ModelProto& model, KGraph& out, std::vector<std::string>& outputs, ConvertStats* stats)
{
    if (!model.has_graph())
        throw ConvertError("the model has no graph");
    opset_ = -1;
    for (const OperatorSetIdProto& o : model.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            opset_ = (int)o.version();
    if (opset_ < 0)
        throw ConvertError("the model imports no default-domain opset");
    // 11..18 is the target; newer opsets only widened the types of the ops
    // converted here (attribute and input changes are handled per op)
    if (opset_ < 7 || opset_ > 28)
        throw ConvertError("opset " + std::to_string(opset_) + " is outside what onnx2kite reads (7..28)");

    // the graph without its initializers (they are read from the model in
    // place: a copy of the graph would hold every weight once more)
    GraphProto graph;
    {
        google::protobuf::RepeatedPtrField<TensorProto> initializers;
        GraphProto& g = *model.mutable_graph(); // left as it was
        initializers.Swap(g.mutable_initializer());
        graph = g;
        initializers.Swap(g.mutable_initializer());
    }
    inline_functions(model, graph, stats ? &stats->inlined_calls : nullptr);

    // the last conversion of the model (no probe conversion follows) frees
    // each initializer's bytes once decoded
    // each initializer's bytes once decoded; large initializers are decoded
    // when a node first reads them (small ones now: the fusions below read them)
    free_raw_ = !opt_.probe && !opt_.inputs_only;
    for (TensorProto& t : *model.mutable_graph()->mutable_initializer())
    {
        if (t.name().empty())
            throw ConvertError("an initializer has no name");
        size_t n = 1;
        Shape dims;
        for (int64_t d : t.dims())
        {
            dims.push_back(d);
            n *= (d > 0 && d <= (1LL << 31)) ? (size_t)d : 1;
        }
        if (n >= kLargeConst && t.data_location() != 1 && t.external_data_size() == 0)
        {
            shapes_[t.name()] = dims;
            consts_.erase(t.name());
            lazy_[t.name()] = &t;
            continue;
        }
        Const c = tensor_to_const(t, t.name());
        shapes_[t.name()] = c.shape;
        consts_[t.name()] = std::move(c);
        lazy_.erase(t.name());
        if (free_raw_)
            std::string().swap(*t.mutable_raw_data());
    }
    if (stats)
        for (const NodeProto& n : graph.node())
            stats->onnx_ops[n.op_type()]++;
    // Constant nodes first, so the GELU matcher sees their values
    for (const NodeProto& n : graph.node())
        if (n.op_type() == "Constant" && n.output_size() == 1)
        {
            node_ = &n;
            if (!fold())
                fail("cannot read its value");
        }
    node_ = nullptr;
    fuse_gelu(graph, consts_);
    fuse_swish(graph);
    // for reevaluate: the graph as converted (fused), while it lives
    graph_ = &graph;
    struct ForgetGraph
    {
        const GraphProto*& g;
        ~ForgetGraph() { g = nullptr; } // `graph` is local
    } forget_graph{graph_};
    producer_.clear();
    for (int i = 0; i < graph.node_size(); i++)
        for (const std::string& o : graph.node(i).output())
            producer_[o] = i;
    rewrite_einsum(graph);

    // unsupported ops, all at once
    kite::convert::UnsupportedOps bad;
    for (const NodeProto& n : graph.node())
    {
        bool foreign = !(n.domain().empty() || n.domain() == "ai.onnx");
        if (foreign || !op_supported(n.op_type()))
            bad.add(foreign ? n.domain() + "::" + n.op_type() : n.op_type(), n.name());
    }
    if (!bad.empty())
        throw ConvertError(bad.text());

    for (const auto& kv : opt_.input_shapes)
    {
        bool found = false;
        for (const ValueInfoProto& vi : graph.input())
            found = found || (vi.name() == kv.first && !is_const(vi.name()));
        if (!found)
        {
            std::string names;
            for (const ValueInfoProto& vi : graph.input())
                if (!is_const(vi.name()))
                    names += (names.empty() ? "'" : ", '") + vi.name() + "'";
            throw ConvertError("inputshape names '" + kv.first + "', which is not a graph input (the inputs: " + names + ")");
        }
    }
    for (const ValueInfoProto& vi : graph.input())
    {
        if (is_const(vi.name()))
            continue;
        Shape s;
        auto ov = opt_.input_shapes.find(vi.name());
        if (ov != opt_.input_shapes.end())
        {
            s = ov->second;
            // refuse at once a shape that does not fit the model's input
            if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
            {
                const auto& dims = vi.type().tensor_type().shape().dim();
                std::string decl = "[";
                for (int i = 0; i < dims.size(); i++)
                    decl += (i ? "," : "") + (dims[i].has_dim_value() ? std::to_string(dims[i].dim_value())
                                                                       : (dims[i].dim_param().empty() ? std::string("?") : dims[i].dim_param()));
                decl += "]";
                if ((size_t)dims.size() != s.size())
                    convert::fail("graph input", vi.name(), "", "inputshape gives " + shape_str(s) + " (rank " + std::to_string(s.size())
                                      + "), the model declares " + decl + " (rank " + std::to_string(dims.size()) + ")");
                for (int i = 0; i < dims.size(); i++)
                    if (dims[i].has_dim_value() && dims[i].dim_value() > 0 && dims[i].dim_value() != s[i] && i > 0 && !opt_.probe)
                        convert::fail("graph input", vi.name(), "", "inputshape gives " + shape_str(s) + ", the model declares " + decl
                                          + " (dimension " + std::to_string(i) + " is fixed)");
            }
            for (int64_t d : s)
                if (d <= 0 || d > (1 << 24))
                    convert::fail("graph input", vi.name(), "", "inputshape gives " + shape_str(s) + ": every dimension must be 1.." + std::to_string(1 << 24));
        }
        else
        {
            if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
                throw ConvertError("graph input '" + vi.name() + "' has no shape; give one with inputshape=" + vi.name() + ":[1,3,224,224]");
            int et = vi.type().tensor_type().elem_type();
            if (et != 1 && et != 0 && et != 10 && et != 11)
                throw ConvertError("graph input '" + vi.name() + "' has element type " + std::to_string(et) + "; kite inputs are float");
            for (const auto& d : vi.type().tensor_type().shape().dim())
            {
                if (d.has_dim_value() && d.dim_value() > (1 << 24))
                    throw ConvertError("graph input '" + vi.name() + "' has an implausible dimension " + std::to_string(d.dim_value()));
                if (d.has_dim_value() && d.dim_value() > 0)
                    s.push_back(d.dim_value());
                else if (s.empty())
                    s.push_back(1); // a symbolic batch
                else
                    throw ConvertError("graph input '" + vi.name() + "' has a symbolic dimension '" + d.dim_param() + "'; give a shape with inputshape=" + vi.name() + ":[...]");
            }
        }
        if (kshape(s).size() > 4)
            throw ConvertError("graph input '" + vi.name() + "' of shape " + shape_str(s) + " has more than 4 axes besides the batch");
        shapes_[vi.name()] = s;
        std::string b = sanitize(vi.name());
        blob_[vi.name()] = b;
        emit(shape_spec<InputSpec>(kshape(s)), {}, {b});
        kshapes_[b] = kshape(s);
    }
    if (opt_.inputs_only)
        return;

    // readers of each tensor: a large constant is dropped after its last one
    for (const NodeProto& n : graph.node())
        for (const std::string& in : n.input())
            uses_[in]++;
    for (const ValueInfoProto& vi : graph.output())
        uses_[vi.name()]++;
    for (const NodeProto& n : graph.node())
    {
        node_ = &n;
        if (n.op_type() == "Constant")
            continue;
        for (int i = 0; i < n.input_size(); i++)
            if (!n.input(i).empty() && !shapes_.count(n.input(i)))
                fail("input '" + n.input(i) + "' is not produced by any earlier node, initializer or graph input (nodes must be in topological order)");
        const size_t first_layer = g_.layers.size();
        if (fold())
        {
            if (stats)
                stats->folded_nodes++;
        }
        else if (!emit())
            fail("unsupported here");
        // the probe conversion compares weights by size and constants by
        // their hash (input_size.h): it keeps no weight values
        if (opt_.probe)
            for (size_t k = first_layer; k < g_.layers.size(); k++)
                for (kite::convert::Weight& w : g_.layers[k].weights)
                    w.drop_values();
        for (const std::string& in : n.input())
        {
            auto u = uses_.find(in);
            if (u != uses_.end() && --u->second == 0)
            {
                auto c = consts_.find(in);
                if (c != consts_.end() && c->second.numel() >= kLargeConst)
                    consts_.erase(c);
            }
        }
    }
    node_ = nullptr;

    for (const ValueInfoProto& vi : graph.output())
    {
        auto it = blob_.find(vi.name());
        const Const* oc = it == blob_.end() ? find_const(vi.name()) : nullptr;
        if (oc)
        {
            std::string b = const_blob(vi.name(), *oc, kshape(oc->shape));
            blob_[vi.name()] = b;
            it = blob_.find(vi.name());
        }
        if (it == blob_.end())
            throw ConvertError("graph output '" + vi.name() + "' is never computed");
        std::string want = sanitize(vi.name());
        if (it->second != want)
        {
            // an alias (Identity, Dropout, a trailing reshape): give it its own name
            KLayer& l = add("Split", {it->second}, {want});
            (void)l;
        }
        outputs_.push_back(want);
    }
    out = std::move(g_);
    outputs = outputs_;
}

// Converts at a probe size (the images' height doubled, width tripled)
// before the real conversion: the probe keeps the initializers' bytes and no
// weight values, the real conversion then frees each initializer as it
// decodes it (peak memory near the file size). Returns the probe graph and
// its shapes in gb/sb, or why the model fails there.
static std::string probe_input_size(ModelProto& model, const ConvertOptions& opt, const std::map<std::string, Shape>& inputs_a,
                                    KGraph& gb, kite::convert::BlobShapes& sb, std::string& at_a, std::string& at_b)
{
    ConvertOptions po = opt;
    po.probe = true;
    po.any_size = false;
    po.inputs_only = false;
    for (const auto& kv : inputs_a)
    {
        Shape s = kv.second;
        at_a += (at_a.empty() ? "" : ", ") + kv.first + kite::convert::dims_text(s);
        if (s.size() == 4)
        {
            s[2] *= 2;
            s[3] *= 3;
        }
        at_b += (at_b.empty() ? "" : ", ") + kite::convert::dims_text(s);
        po.input_shapes[kv.first] = s;
    }
    if (at_a == at_b || inputs_a.empty())
        return "-"; // no image input: nothing to probe
    try
    {
        std::vector<std::string> outs_b;
        Converter c(po);
        c.convert(model, gb, outs_b, nullptr);
        sb = std::move(c.kshapes_);
        return "";
    }
    catch (const ConvertError& e)
    {
        return e.what();
    }
    catch (const std::bad_alloc&)
    {
        return "out of memory";
    }
}

static bool parse_model(const void* data, size_t size, ModelProto& model, std::string& err)
{
    google::protobuf::io::CodedInputStream in((const uint8_t*)data, (int)std::min(size, (size_t)INT_MAX));
    in.SetTotalBytesLimit(INT_MAX);
    in.SetRecursionLimit(64);
    if (size > (size_t)INT_MAX || !model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
    {
        err = "not a valid ONNX model (protobuf parse failed: truncated or corrupt file?)";
        return false;
    }
    return true;
}

// reload: parses the model again (the conversion frees its initializers as it
// goes; a second conversion at another size needs them); nullptr when the
// bytes are gone
static bool convert_model(ModelProto& model, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs,
                          ConvertStats* stats, std::string& err, const std::function<bool(ModelProto&)>& reload);

bool convert_onnx_buffer(const void* data, size_t size, const ConvertOptions& opt, KGraph& out,
                         std::vector<std::string>& outputs, ConvertStats* stats, std::string& err)
{
    ModelProto model;
    std::string ignored;
    return parse_model(data, size, model, err)
           && convert_model(model, opt, out, outputs, stats, err, [&](ModelProto& m) { return parse_model(data, size, m, ignored); });
}

static bool parse_file(const char* path, ModelProto& model, std::string& err)
{
    {
        // parsed from the file in blocks: the file's bytes are never held
        // next to the parsed model (that pair was the converter's peak)
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
        {
            err = std::string("cannot open: ") + strerror(errno);
            return false;
        }
        google::protobuf::io::FileInputStream file(fd, 1 << 20);
        file.SetCloseOnDelete(true);
        google::protobuf::io::CodedInputStream in(&file);
        in.SetTotalBytesLimit(INT_MAX);
        in.SetRecursionLimit(64);
        if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage() || file.GetErrno() != 0)
        {
            err = file.GetErrno() != 0 ? std::string("cannot read: ") + strerror(file.GetErrno())
                                       : "not a valid ONNX model (protobuf parse failed: truncated or corrupt file?)";
            return false;
        }
    }
    return true;
}

bool convert_onnx_file(const char* path, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs,
                       ConvertStats* stats, std::string& err)
{
    ModelProto model;
    if (!parse_file(path, model, err))
        return false;
    std::string ignored;
    return convert_model(model, opt, out, outputs, stats, err, [&](ModelProto& m) { return parse_file(path, m, ignored); });
}

bool convert_onnx_bytes(std::string bytes, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs,
                        ConvertStats* stats, std::string& err)
{
    ModelProto model;
    const bool parsed = parse_model(bytes.data(), bytes.size(), model, err);
    std::string().swap(bytes);
    return parsed && convert_model(model, opt, out, outputs, stats, err, nullptr);
}

// Converts at A (with the probe at B); "" or why the result is fixed to A
static std::string convert_at(ModelProto& model, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs, ConvertStats* stats,
                              std::map<std::string, Shape>& inputs_a, std::string& at_a, std::string& at_b);

static std::string convert_at(ModelProto& model, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs, ConvertStats* stats,
                              std::map<std::string, Shape>& inputs_a, std::string& at_a, std::string& at_b)
{
    // the graph inputs' shapes (a pass that stops there), the probe size,
    // then the conversion that frees each initializer as it goes
    std::string why = "-";
    KGraph gb;
    kite::convert::BlobShapes sb;
    if (opt.any_size)
    {
        ConvertOptions io = opt;
        io.inputs_only = true;
        Converter c(io);
        KGraph none;
        std::vector<std::string> outs;
        c.convert(model, none, outs, nullptr);
        for (const ValueInfoProto& vi : model.graph().input())
            if (!c.is_const(vi.name()) && c.shapes_.count(vi.name()))
                inputs_a[vi.name()] = c.shapes_[vi.name()];
        why = probe_input_size(model, opt, inputs_a, gb, sb, at_a, at_b);
    }
    kite::convert::BlobShapes shapes_a;
    {
        Converter c(opt);
        c.convert(model, out, outputs, stats);
        shapes_a = std::move(c.kshapes_);
    }
    if (why.empty())
        why = kite::convert::generalize_input_size(out, shapes_a, gb, sb);
    return why;
}

static bool convert_model(ModelProto& model, const ConvertOptions& opt, KGraph& out, std::vector<std::string>& outputs,
                          ConvertStats* stats, std::string& err, const std::function<bool(ModelProto&)>& reload)
{
    try
    {
        std::map<std::string, Shape> inputs_a;
        std::string at_a, at_b;
        std::string why = convert_at(model, opt, out, outputs, stats, inputs_a, at_a, at_b);
        // The layout drops axes of size 1 (onnx_convert.h): where the input's
        // size makes an axis 1 at A and not at the probe size (Swin's last
        // stage, one window at 224x224), the two graphs differ. Converted at
        // twice A, the axis is not 1; the graph, generalized there, also runs
        // at A (it declares A).
        if (!why.empty() && why != "-" && reload && why.find("the converted graph differs") == 0)
        {
            ConvertOptions o2 = opt;
            bool doubled = false;
            for (const auto& kv : inputs_a)
                if (kv.second.size() == 4)
                {
                    Shape s = kv.second;
                    s[2] *= 2;
                    s[3] *= 2;
                    o2.input_shapes[kv.first] = s;
                    doubled = true;
                }
            ModelProto m2;
            KGraph out2;
            std::vector<std::string> outputs2;
            ConvertStats stats2;
            std::map<std::string, Shape> inputs2;
            std::string at_a2, at_b2, why2 = "-";
            if (doubled && reload(m2))
            {
                KGraph().layers.swap(out.layers); // the first graph's weights go: peak memory stays one graph
                outputs.clear();
                try
                {
                    why2 = convert_at(m2, o2, out2, outputs2, stats ? &stats2 : nullptr, inputs2, at_a2, at_b2);
                }
                catch (const ConvertError&)
                {
                    why2 = "-"; // e.g. the model declares its size: keep the first conversion
                }
            }
            if (why2.empty())
            {
                // the Input layers declare A again
                for (KLayer& l : out2.layers)
                    if (l.type == "Input")
                        for (const auto& kv : inputs_a)
                            if (kv.second.size() == 4 && l.params.get_int(Input::PARAM_W, 0) == 2 * kv.second[3]
                                && l.params.get_int(Input::PARAM_H, 0) == 2 * kv.second[2])
                            {
                                l.params.set(Input::PARAM_W, (int)kv.second[3]);
                                l.params.set(Input::PARAM_H, (int)kv.second[2]);
                            }
                out = std::move(out2);
                outputs = std::move(outputs2);
                if (stats)
                {
                    *stats = std::move(stats2);
                    stats->size_note = "converted at " + at_a2 + " (at " + at_a + ", " + why + "), declares " + at_a;
                }
                why = "";
            }
            else if (out.layers.empty())
            {
                // back to the graph at A (fixed): converted once more
                ModelProto m3;
                std::map<std::string, Shape> inputs3;
                std::string a3, b3;
                if (stats)
                    *stats = ConvertStats();
                if (!reload(m3))
                    throw ConvertError("cannot read the model again");
                convert_at(m3, opt, out, outputs, stats, inputs3, a3, b3);
            }
        }
        if (!why.empty() && why != "-")
        {
            kite::convert::mark_input_size_fixed(out); // kite refuses another size instead of computing it wrongly
            if (stats)
                stats->fixed_size = "the model runs only at the converted input size " + at_a + " (at " + at_b + ": " + why + ")";
        }
    }
    catch (const ConvertError& e)
    {
        err = e.what();
        return false;
    }
    catch (const std::bad_alloc&)
    {
        err = "out of memory while converting (is a tensor size corrupt?)";
        return false;
    }
    return true;
}

} // namespace onnx
} // namespace convert
} // namespace kite
