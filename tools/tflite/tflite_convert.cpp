#include "tflite_convert.h"

#include "emit.h"
#include "tflite_model.h"

#include "layer/binaryop.h"
#include "layer/padding.h"
#include "layer/reduction.h"
#include "layer/unaryop.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

namespace kite {
namespace convert {
namespace tflite {

namespace {

typedef std::vector<int64_t> Shape;

// Permute order types between kite's CHW and TFLite's HWC memory order
// (layer/permute.h numbers the orders of the three axes)
enum
{
    PERMUTE_CHW_TO_HWC = 3,
    PERMUTE_HWC_TO_CHW = 4,
};

// an op kite cannot convert: goes to the unsupported-ops report
struct Unsupported : public ConvertError
{
    explicit Unsupported(const std::string& why)
        : ConvertError(why)
    {
    }
};

std::string shape_string(const Shape& s)
{
    std::string r = "[";
    for (size_t i = 0; i < s.size(); i++)
        r += (i ? "," : "") + std::to_string(s[i]);
    return r + "]";
}

int64_t shape_count(const Shape& s)
{
    int64_t n = 1;
    for (int64_t d : s)
    {
        if (d < 0 || (d > 0 && n > ((int64_t)1 << 40) / d))
            throw ConvertError("shape " + shape_string(s) + " is negative or too large");
        n *= d;
    }
    return n;
}

int checked_int(int64_t v)
{
    if (v < 0 || v > INT_MAX)
        throw ConvertError("dimension " + std::to_string(v) + " out of range");
    return (int)v;
}

float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0)
    {
        if (mant == 0)
        {
            bits = sign;
        }
        else
        {
            exp = 127 - 15 + 1;
            while (!(mant & 0x400))
            {
                mant <<= 1;
                exp--;
            }
            bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
        }
    }
    else if (exp == 31)
    {
        bits = sign | 0x7f800000u | (mant << 13);
    }
    else
    {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

// a constant tensor, values dequantized (real numbers), as double
struct Const
{
    Shape shape;
    std::vector<double> v;
    int64_t count() const { return (int64_t)v.size(); }
    std::vector<int64_t> ints() const
    {
        std::vector<int64_t> r;
        for (double d : v)
            r.push_back((int64_t)d);
        return r;
    }
    std::vector<float> floats() const { return std::vector<float>(v.begin(), v.end()); }
};

// a TFLite tensor during conversion: a constant or a kite blob with its
// TFLite shape (batch first)
struct Value
{
    bool is_const = false;
    Const c;
    std::string blob;
    Shape shape;
};

struct Geometry
{
    int64_t kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, oh, ow;
};

void same_pads(int64_t in, int64_t ek, int64_t s, int64_t& before, int64_t& after)
{
    const int64_t out = (in + s - 1) / s;
    const int64_t total = std::max((out - 1) * s + ek - in, (int64_t)0);
    before = total / 2;
    after = total - before;
}

Geometry window_geometry(const Shape& x, int64_t kh, int64_t kw, const Options& o)
{
    Geometry g;
    g.kh = kh;
    g.kw = kw;
    g.sh = o.stride_h;
    g.sw = o.stride_w;
    g.dh = o.dilation_h;
    g.dw = o.dilation_w;
    if (kh <= 0 || kw <= 0 || kh > 65536 || kw > 65536)
        throw ConvertError("kernel size " + std::to_string(kh) + "x" + std::to_string(kw) + " out of range");
    if (g.sh <= 0 || g.sw <= 0 || g.dh <= 0 || g.dw <= 0 || g.sh > 65536 || g.sw > 65536 || g.dh > 65536 || g.dw > 65536)
        throw ConvertError("strides " + std::to_string(g.sw) + "x" + std::to_string(g.sh) + " / dilations " + std::to_string(g.dw)
                           + "x" + std::to_string(g.dh) + " out of range");
    const int64_t ekh = (kh - 1) * g.dh + 1, ekw = (kw - 1) * g.dw + 1;
    if (o.padding == 0) // SAME
    {
        same_pads(x[1], ekh, g.sh, g.pt, g.pb);
        same_pads(x[2], ekw, g.sw, g.pl, g.pr);
    }
    else if (o.padding == 1) // VALID
    {
        g.pt = g.pb = g.pl = g.pr = 0;
    }
    else
    {
        throw ConvertError("padding " + std::to_string(o.padding) + " is neither SAME (0) nor VALID (1)");
    }
    if (x[1] + g.pt + g.pb < ekh || x[2] + g.pl + g.pr < ekw)
        throw ConvertError("window larger than the padded input " + shape_string(x));
    g.oh = (x[1] + g.pt + g.pb - ekh) / g.sh + 1;
    g.ow = (x[2] + g.pl + g.pr - ekw) / g.sw + 1;
    return g;
}

template<class Spec>
void set_conv_window(Spec& s, const Geometry& g)
{
    s.kernel((int)g.kw, (int)g.kh).dilation((int)g.dw, (int)g.dh).stride((int)g.sw, (int)g.sh);
    s.pads((int)g.pl, (int)g.pr, (int)g.pt, (int)g.pb);
}

class Converter
{
public:
    Converter(const Model& model, const ConvertOptions& o, Graph& graph, UnsupportedOps& u, ConvertStats& s)
        : m(model), opt(o), g(graph), unsupported(u), stats(s)
    {
    }
    void run();

private:
    const Model& m;
    const ConvertOptions& opt;
    Graph& g;
    UnsupportedOps& unsupported;
    ConvertStats& stats;

    std::map<int, Value> values;                       // tensor index -> value
    std::set<int> failed;                              // tensors of ops not converted
    std::map<std::pair<std::string, int>, std::string> shifted; // (blob, zero point) -> shifted blob
    const Operator* cur = nullptr;                     // the op being converted
    std::string cur_name;                              // its layer name

    // ---- names and values ----
    static std::string clean(const std::string& s)
    {
        std::string r = s.substr(0, s.find(';'));
        if (r.size() > 96)
            r = r.substr(0, 96);
        for (char& c : r)
            if (c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '=')
                c = '_';
        return r.empty() ? std::string("t") : r;
    }
    const Tensor& tensor(int i) const { return m.tensors[(size_t)i]; }
    std::string out_blob(int k = 0)
    {
        if ((size_t)k >= cur->outputs.size())
            throw ConvertError("expects at least " + std::to_string(k + 1) + " outputs");
        return g.unique_blob_name(clean(tensor(cur->outputs[(size_t)k]).name));
    }
    Shape tensor_shape(int i) const
    {
        const Tensor& t = tensor(i);
        return Shape(t.shape.begin(), t.shape.end());
    }
    bool has_input(int i) const { return (size_t)i < cur->inputs.size() && cur->inputs[(size_t)i] >= 0; }
    const Value& input(int i);
    const Value& blob_input(int i)
    {
        const Value& v = input(i);
        if (v.is_const)
            throw Unsupported("constant input " + std::to_string(i) + " where an activation is expected");
        return v;
    }
    const Const& const_input(int i, const char* what)
    {
        const Value& v = input(i);
        if (!v.is_const)
            throw Unsupported(std::string(what) + " must be a constant");
        return v.c;
    }
    void set_output(int k, const Value& v)
    {
        if ((size_t)k >= cur->outputs.size())
            throw ConvertError("expects at least " + std::to_string(k + 1) + " outputs");
        values[cur->outputs[(size_t)k]] = v;
    }
    static Value blob_value(const std::string& blob, const Shape& shape)
    {
        Value v;
        v.blob = blob;
        v.shape = shape;
        return v;
    }
    static Value const_value(const Const& c)
    {
        Value v;
        v.is_const = true;
        v.c = c;
        v.shape = c.shape;
        return v;
    }
    Const read_const(const Tensor& t);

    template<class Spec>
    Layer& emit(const Spec& s, const std::string& name, const std::vector<std::string>& bottoms,
                const std::vector<std::string>& tops)
    {
        return convert::emit(g, s, name, bottoms, tops);
    }

    // ---- layout (as tensorflow2kite) ----
    static std::vector<int> kdims(const Shape& s);
    static std::vector<int> source_kdims(const Shape& s);
    static bool order_differs(const Shape& s) { return s.size() == 4 && s[1] * s[2] > 1 && s[3] > 1; }
    static int kaxis(int64_t a, size_t rank);
    static void set_shape_params(Layer& l, const std::vector<int>& k);
    std::string to_source_order(const Value& v, const std::string& name);
    Value emit_reshape(const Value& v, const Shape& target, const std::string& name, const std::string& top);
    Value expand_rank(const Value& v, size_t rank, const std::string& name);
    std::string emit_memorydata(const Const& c, size_t rank, const std::string& name);
    std::string shift_input(const std::string& blob, int zero_point, float scale);

    // ---- ops ----
    void convert_op(const Operator& op);
    void fused_activation(const std::string& bottom, const std::string& top, int act, const std::string& name);
    void finish_with_activation(Layer& l, int act, const std::string& top, const Shape& shape);
    void op_conv(bool depthwise);
    void op_fully_connected();
    void op_transpose_conv();
    void op_pool();
    void op_binary(int code);
    void op_unary();
    void op_reduce();
    void op_reshape();
    void op_concat();
    void op_pad();
    void op_softmax();
    void op_resize();
    void op_strided_slice();
    void op_transpose();
    void op_shape_const();
    void op_batch_matmul();
    void op_prelu();
    void add_input(int index);
    void finish_output(int index);
};

const Value& Converter::input(int i)
{
    if (!has_input(i))
        throw ConvertError("expects input " + std::to_string(i));
    const int t = cur->inputs[(size_t)i];
    auto it = values.find(t);
    if (it != values.end())
        return it->second;
    const Tensor& tt = tensor(t);
    if (!tt.data)
        throw ConvertError("input tensor " + std::to_string(t) + " '" + tt.name
                           + "' is neither a constant nor written by an earlier operator");
    return values[t] = const_value(read_const(tt));
}

Const Converter::read_const(const Tensor& t)
{
    Const c;
    c.shape = Shape(t.shape.begin(), t.shape.end());
    const int64_t n = shape_count(c.shape);
    const size_t es = tensor_type_size(t.type);
    if (!es || t.type == TT_BOOL)
        throw Unsupported(std::string("constant '") + t.name + "' of type " + tensor_type_name(t.type));
    if ((size_t)n * es != t.size)
        throw ConvertError("constant '" + t.name + "' has " + std::to_string(t.size) + " bytes for " + std::to_string(n)
                           + " elements");
    if (t.type == TT_FLOAT16)
        stats.fp16_weights++;
    else if (t.type == TT_FLOAT32 && n > 1)
        stats.float_weights++;
    c.v.resize((size_t)n);
    const uint8_t* p = t.data;
    for (int64_t i = 0; i < n; i++)
    {
        double v = 0;
        switch (t.type)
        {
        case TT_FLOAT32:
        {
            float f;
            memcpy(&f, p + i * 4, 4);
            v = f;
            break;
        }
        case TT_FLOAT16:
        {
            uint16_t h;
            memcpy(&h, p + i * 2, 2);
            v = half_to_float(h);
            break;
        }
        case TT_FLOAT64:
            memcpy(&v, p + i * 8, 8);
            break;
        case TT_INT32:
        {
            int32_t x;
            memcpy(&x, p + i * 4, 4);
            v = x;
            break;
        }
        case TT_INT64:
        {
            int64_t x;
            memcpy(&x, p + i * 8, 8);
            v = (double)x;
            break;
        }
        case TT_INT16:
        {
            int16_t x;
            memcpy(&x, p + i * 2, 2);
            v = x;
            break;
        }
        case TT_INT8: v = (int8_t)p[i]; break;
        case TT_UINT8: v = p[i]; break;
        }
        c.v[(size_t)i] = v;
    }
    // dequantize: (q - zero_point) * scale, per tensor or along quantized_dimension
    const Quantization& q = t.q;
    if (q.present() && t.type != TT_FLOAT32 && t.type != TT_FLOAT16)
    {
        const size_t ns = q.scale.size();
        int64_t inner = 1, dim = 1;
        if (ns > 1)
        {
            if (q.axis < 0 || (size_t)q.axis >= c.shape.size() || c.shape[(size_t)q.axis] != (int64_t)ns)
                throw ConvertError("constant '" + t.name + "': " + std::to_string(ns) + " scales along dimension "
                                   + std::to_string(q.axis) + " of " + shape_string(c.shape));
            dim = c.shape[(size_t)q.axis];
            for (size_t d = (size_t)q.axis + 1; d < c.shape.size(); d++)
                inner *= c.shape[d];
        }
        for (int64_t i = 0; i < n; i++)
        {
            const size_t k = ns > 1 ? (size_t)((i / inner) % dim) : 0;
            const double zp = q.zero_point.empty() ? 0.0 : (double)q.zero_point[k];
            c.v[(size_t)i] = (c.v[(size_t)i] - zp) * q.scale[k];
        }
    }
    return c;
}

// ---- layout -----------------------------------------------------------------

std::vector<int> Converter::kdims(const Shape& s)
{
    switch (s.size())
    {
    case 0: return {1};
    case 1: return {checked_int(s[0])};
    case 2:
    case 3:
    case 4:
        if (s[0] != 1)
            throw Unsupported("batch " + std::to_string(s[0]) + " in " + shape_string(s) + " (only batch 1 is supported)");
        if (s.size() == 2)
            return {checked_int(s[1])};
        if (s.size() == 3)
            return {checked_int(s[1]), checked_int(s[2])};
        return {checked_int(s[3]), checked_int(s[1]), checked_int(s[2])};
    }
    throw Unsupported("activation of rank " + std::to_string(s.size()));
}

std::vector<int> Converter::source_kdims(const Shape& s)
{
    std::vector<int> k = kdims(s);
    if (s.size() == 4)
        return {checked_int(s[1]), checked_int(s[2]), checked_int(s[3])};
    return k;
}

int Converter::kaxis(int64_t a, size_t rank)
{
    if (a < 0)
        a += (int64_t)rank;
    if (a < 0 || a >= (int64_t)rank)
        throw ConvertError("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
    if (rank == 1)
        return 0;
    if (a == 0)
        throw Unsupported("operation along the batch axis");
    if (rank == 4)
        return a == 3 ? 0 : (int)a;
    return (int)a - 1;
}

void Converter::set_shape_params(Layer& l, const std::vector<int>& k)
{
    // Reshape, MemoryData and Input read w, h, c alike
    ReshapeSpec s;
    const size_t n = k.size();
    s.w = k[n - 1];
    if (n >= 2)
        s.h = k[n - 2];
    if (n >= 3)
        s.c = k[n - 3];
    s.write(l.params);
}

std::string Converter::to_source_order(const Value& v, const std::string& name)
{
    if (!order_differs(v.shape))
        return v.blob;
    const std::string top = g.unique_blob_name(v.blob + "_nhwc");
    emit(PermuteSpec::order(PERMUTE_CHW_TO_HWC), name + "_to_nhwc", {v.blob}, {top});
    return top;
}

Value Converter::emit_reshape(const Value& v, const Shape& target, const std::string& name, const std::string& top)
{
    if (shape_count(v.shape) != shape_count(target))
        throw ConvertError("reshape of " + shape_string(v.shape) + " to " + shape_string(target) + " changes the element count");
    const std::vector<int> src_k = order_differs(v.shape) ? source_kdims(v.shape) : kdims(v.shape);
    const std::string src = to_source_order(v, name);
    if (order_differs(target))
    {
        const std::vector<int> mid_k = source_kdims(target);
        std::string mid = src;
        if (mid_k != src_k)
        {
            mid = g.unique_blob_name(top + "_nhwc");
            ReshapeSpec rs;
            set_shape_params(emit(rs, name, {src}, {mid}), mid_k);
        }
        emit(PermuteSpec::order(PERMUTE_HWC_TO_CHW), name + "_to_nchw", {mid}, {top});
        return blob_value(top, target);
    }
    const std::vector<int> k = kdims(target);
    if (k == src_k && src == v.blob)
        return blob_value(v.blob, target);
    ReshapeSpec rs;
    set_shape_params(emit(rs, name, {src}, {top}), k);
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
    if (s.size() != rank || (rank > 1 && s[0] != 1))
        throw Unsupported("constant operand of shape " + shape_string(c0.shape) + " against a rank " + std::to_string(rank)
                          + " activation");
    std::vector<float> data = c0.floats();
    std::vector<int> k;
    if (rank == 4)
    {
        // NHWC -> CHW
        const int64_t H = s[1], W = s[2], C = s[3];
        std::vector<float> t(data.size());
        for (int64_t y = 0; y < H; y++)
            for (int64_t x = 0; x < W; x++)
                for (int64_t ch = 0; ch < C; ch++)
                    t[(size_t)((ch * H + y) * W + x)] = data[(size_t)((y * W + x) * C + ch)];
        data.swap(t);
        k = {checked_int(C), checked_int(H), checked_int(W)};
    }
    else if (rank <= 1)
    {
        k = {checked_int((int64_t)data.size())};
    }
    else
    {
        for (size_t i = 1; i < s.size(); i++)
            k.push_back(checked_int(s[i]));
    }
    const std::string top = g.unique_blob_name(name + "_const");
    MemoryDataSpec ms;
    Layer& l = emit(ms, top, {}, {top});
    set_shape_params(l, k);
    l.weights.push_back(Weight(data, false));
    return top;
}

// x + zero_point * scale: TFLite's asymmetric int8 value q of x becomes
// kite's symmetric round(x' / scale) = q - tflite_zp + zero_point
std::string Converter::shift_input(const std::string& blob, int zero_point, float scale)
{
    if (zero_point == 0)
        return blob;
    const auto key = std::make_pair(blob, zero_point);
    auto it = shifted.find(key);
    if (it != shifted.end())
        return it->second;
    const std::string top = g.unique_blob_name(blob + "_zp");
    emit(BinaryOpSpec::scalar(BinaryOp::Operation_ADD, (float)zero_point * scale), top, {blob}, {top});
    shifted[key] = top;
    return top;
}

// ---- activations ------------------------------------------------------------

void Converter::fused_activation(const std::string& bottom, const std::string& top, int act, const std::string& name)
{
    switch (act)
    {
    case ACT_RELU:
    {
        ReLUSpec s;
        emit(s, name, {bottom}, {top});
        return;
    }
    case ACT_RELU6:
    case ACT_RELU_N1_TO_1:
    {
        ClipSpec s;
        s.min = act == ACT_RELU6 ? 0.f : -1.f;
        s.max = act == ACT_RELU6 ? 6.f : 1.f;
        emit(s, name, {bottom}, {top});
        return;
    }
    case ACT_TANH:
        emit(PlainSpec("TanH"), name, {bottom}, {top});
        return;
    }
    throw Unsupported("fused activation " + std::to_string(act));
}

// a conv-like layer `l` whose top is already named: fuse ReLU/ReLU6 into it,
// else add the activation as a layer
void Converter::finish_with_activation(Layer& l, int act, const std::string& top, const Shape& shape)
{
    if (act == ACT_NONE)
    {
        set_output(0, blob_value(top, shape));
        return;
    }
    if (act == ACT_RELU)
    {
        set_activation(l, ACTIVATION_RELU, {});
    }
    else if (act == ACT_RELU6 || act == ACT_RELU_N1_TO_1)
    {
        set_activation(l, ACTIVATION_CLIP, act == ACT_RELU6 ? std::vector<float>{0.f, 6.f} : std::vector<float>{-1.f, 1.f});
    }
    else
    {
        const std::string pre = g.unique_blob_name(top + "_pre");
        l.tops[0] = pre;
        fused_activation(pre, top, act, cur_name + "_act");
    }
    set_output(0, blob_value(top, shape));
}

// ---- ops ----------------------------------------------------------------------

void Converter::op_conv(bool depthwise)
{
    const Value x = blob_input(0);
    const Const& f = const_input(1, "filter");
    const Options& o = cur->opt;
    if (x.shape.size() != 4)
        throw Unsupported("input of rank " + std::to_string(x.shape.size()));
    if (f.shape.size() != 4)
        throw ConvertError("filter must have rank 4, not " + std::to_string(f.shape.size()));
    // CONV_2D filter [O, kh, kw, I]; DEPTHWISE_CONV_2D [1, kh, kw, C * multiplier]
    const int64_t kh = f.shape[1], kw = f.shape[2];
    const Geometry geo = window_geometry(x.shape, kh, kw, o);
    const int64_t C = x.shape[3];
    int64_t num_output, group, inch_g;
    if (depthwise)
    {
        if (f.shape[0] != 1 || C <= 0 || f.shape[3] % C != 0)
            throw ConvertError("filter " + shape_string(f.shape) + " does not match input " + shape_string(x.shape));
        num_output = f.shape[3];
        group = C;
        inch_g = 1;
    }
    else
    {
        num_output = f.shape[0];
        inch_g = f.shape[3];
        if (inch_g <= 0 || C % inch_g != 0 || num_output % (C / inch_g) != 0)
            throw ConvertError("filter " + shape_string(f.shape) + " does not match input " + shape_string(x.shape));
        group = C / inch_g;
    }
    const int64_t mult = num_output / group;
    const int64_t maxk = kh * kw;
    // kite weight index (o, i, ky, kx) <- TFLite index
    auto src_index = [&](int64_t oc, int64_t i, int64_t y, int64_t xx) -> size_t {
        if (depthwise) // [1, kh, kw, C * mult]: output channel g * mult + j
            return (size_t)((y * kw + xx) * num_output + oc);
        return (size_t)(((oc * kh + y) * kw + xx) * inch_g + i);
    };
    const size_t wsize = (size_t)(num_output * inch_g * maxk);
    std::vector<float> bias(num_output, 0.f);
    bool has_bias = false;
    if (has_input(2))
    {
        const Const& b = const_input(2, "bias");
        if (b.count() != num_output)
            throw ConvertError("bias has " + std::to_string(b.count()) + " values for " + std::to_string(num_output) + " outputs");
        bias = b.floats();
        has_bias = true;
    }

    // int8: TFLite's int8 weights and scales onto kite's int8 layer
    const Tensor& ft = tensor(cur->inputs[1]);
    const Tensor& xt = tensor(cur->inputs[0]);
    const bool int8 = opt.int8_layers && ft.type == TT_INT8 && ft.data && ft.q.present() && xt.type == TT_INT8
                      && xt.q.scale.size() == 1 && xt.q.scale[0] > 0.f
                      // kite's grouped int8 layers take one weight scale per group
                      && (depthwise ? mult == 1 : group == 1);
    const std::string top = out_blob();
    ConvolutionSpec cs;
    cs.type = group > 1 ? "ConvolutionDepthWise" : "Convolution";
    cs.num_output = (int)num_output;
    set_conv_window(cs, geo);
    cs.bias_term = 1;
    cs.weight_data_size = (int)wsize;
    if (group > 1)
        cs.group = (int)group;
    std::string bottom = x.blob;
    Weight w;
    if (int8)
    {
        const float sx = xt.q.scale[0];
        const int zp = xt.q.zero_point.empty() ? 0 : (int)xt.q.zero_point[0];
        const int z = zp < 0 ? zp + 1 : zp; // the shifted grid's zero: q = -128 stays representable
        std::vector<float> wscale((size_t)num_output);
        for (int64_t oc = 0; oc < num_output; oc++)
        {
            const float s = ft.q.scale.size() == 1 ? ft.q.scale[0] : ft.q.scale.at((size_t)oc);
            if (!(s > 0.f))
                throw ConvertError("weight scale " + std::to_string(s) + " of output channel " + std::to_string(oc));
            wscale[(size_t)oc] = 1.f / s;
        }
        if (ft.q.scale.size() != 1 && ft.q.scale.size() != (size_t)num_output)
            throw ConvertError(std::to_string(ft.q.scale.size()) + " weight scales for " + std::to_string(num_output) + " outputs");
        w.storage = Weight::INT8;
        w.i8.resize(wsize);
        const int8_t* q = reinterpret_cast<const int8_t*>(ft.data);
        for (int64_t oc = 0; oc < num_output; oc++)
        {
            int64_t sum = 0;
            for (int64_t i = 0; i < inch_g; i++)
                for (int64_t y = 0; y < kh; y++)
                    for (int64_t xx = 0; xx < kw; xx++)
                    {
                        const int8_t v = q[src_index(oc, i, y, xx)];
                        w.i8[(size_t)(((oc * inch_g + i) * kh + y) * kw + xx)] = v;
                        sum += v;
                    }
            if (z != 0) // sum w_q (q' - z) = sum w_q q' - z sum w_q
                bias[(size_t)oc] -= (float)((double)sx / wscale[(size_t)oc] * z * (double)sum);
        }
        if (z != 0)
        {
            bottom = shift_input(x.blob, z, sx);
            cs.pad_value = (float)z; // an int8 value: the pads hold real 0
        }
        cs.int8_scale_term = group > 1 ? 1 : 2;
        Layer& l = emit(cs, cur_name, {bottom}, {top});
        l.weights.push_back(w);
        l.weights.push_back(Weight(bias, false));
        l.weights.push_back(Weight(wscale, false));
        l.weights.push_back(Weight(std::vector<float>(1, 1.f / sx), false));
        stats.int8_layers++;
        finish_with_activation(l, o.activation, top, {1, geo.oh, geo.ow, num_output});
        return;
    }
    (void)has_bias;
    std::vector<float> wf(wsize);
    for (int64_t oc = 0; oc < num_output; oc++)
        for (int64_t i = 0; i < inch_g; i++)
            for (int64_t y = 0; y < kh; y++)
                for (int64_t xx = 0; xx < kw; xx++)
                    wf[(size_t)(((oc * inch_g + i) * kh + y) * kw + xx)] = (float)f.v[src_index(oc, i, y, xx)];
    Layer& l = emit(cs, cur_name, {bottom}, {top});
    l.weights.push_back(Weight(wf, true));
    l.weights.push_back(Weight(bias, false));
    finish_with_activation(l, o.activation, top, {1, geo.oh, geo.ow, num_output});
}

void Converter::op_fully_connected()
{
    Value x = blob_input(0);
    const Const& f = const_input(1, "weights");
    const Options& o = cur->opt;
    if (o.weights_format != 0)
        throw Unsupported("shuffled weights format " + std::to_string(o.weights_format));
    if (f.shape.size() != 2)
        throw ConvertError("weights must have rank 2, not " + std::to_string(f.shape.size()));
    const int64_t M = f.shape[0], K = f.shape[1];
    const int64_t total = shape_count(x.shape);
    if (K <= 0 || M <= 0 || total % K != 0)
        throw ConvertError("weights " + shape_string(f.shape) + " do not match input " + shape_string(x.shape));
    const int64_t rows = total / K;
    // rows > 1: the input as [1, rows, K] (kite's 2-D blob: InnerProduct per row)
    Shape in_shape = rows > 1 ? Shape{1, rows, K} : Shape{1, K};
    if (x.shape != in_shape)
        x = emit_reshape(x, in_shape, cur_name + "_flatten", g.unique_blob_name(x.blob + "_flat"));
    Shape out_shape = tensor_shape(cur->outputs[0]);
    if (shape_count(out_shape) != rows * M)
        throw ConvertError("output " + shape_string(out_shape) + " is not " + std::to_string(rows) + " x " + std::to_string(M));
    if (out_shape.size() == 2 && out_shape[0] > 1)
        out_shape.insert(out_shape.begin(), 1);
    std::vector<float> bias((size_t)M, 0.f);
    if (has_input(2))
    {
        const Const& b = const_input(2, "bias");
        if (b.count() != M)
            throw ConvertError("bias has " + std::to_string(b.count()) + " values for " + std::to_string(M) + " outputs");
        bias = b.floats();
    }
    const Tensor& ft = tensor(cur->inputs[1]);
    const Tensor& xt = tensor(cur->inputs[0]);
    const bool int8 = opt.int8_layers && ft.type == TT_INT8 && ft.data && ft.q.present() && xt.type == TT_INT8
                      && xt.q.scale.size() == 1 && xt.q.scale[0] > 0.f
                      && (ft.q.scale.size() == 1 || ft.q.scale.size() == (size_t)M);
    const Shape kshape = rows > 1 ? Shape{1, rows, M} : Shape{1, M};
    const std::string top = out_blob();
    const std::string ip_top = kshape == out_shape ? top : g.unique_blob_name(top + "_ip");
    InnerProductSpec ip;
    ip.num_output = (int)M;
    ip.bias_term = 1;
    ip.weight_data_size = (int)(M * K);
    std::string bottom = x.blob;
    Layer* lp;
    if (int8)
    {
        const float sx = xt.q.scale[0];
        const int zp = xt.q.zero_point.empty() ? 0 : (int)xt.q.zero_point[0];
        const int z = zp < 0 ? zp + 1 : zp;
        std::vector<float> wscale((size_t)M);
        Weight w;
        w.storage = Weight::INT8;
        w.i8.assign(reinterpret_cast<const int8_t*>(ft.data), reinterpret_cast<const int8_t*>(ft.data) + M * K);
        for (int64_t r = 0; r < M; r++)
        {
            const float s = ft.q.scale.size() == 1 ? ft.q.scale[0] : ft.q.scale[(size_t)r];
            if (!(s > 0.f))
                throw ConvertError("weight scale " + std::to_string(s) + " of output " + std::to_string(r));
            wscale[(size_t)r] = 1.f / s;
            if (z != 0)
            {
                int64_t sum = 0;
                for (int64_t k = 0; k < K; k++)
                    sum += w.i8[(size_t)(r * K + k)];
                bias[(size_t)r] -= (float)((double)sx * s * z * (double)sum);
            }
        }
        bottom = shift_input(x.blob, z, sx);
        ip.int8_scale_term = 2;
        Layer& l = emit(ip, cur_name, {bottom}, {ip_top});
        l.weights.push_back(w);
        l.weights.push_back(Weight(bias, false));
        l.weights.push_back(Weight(wscale, false));
        l.weights.push_back(Weight(std::vector<float>(1, 1.f / sx), false));
        stats.int8_layers++;
        lp = &l;
    }
    else
    {
        Layer& l = emit(ip, cur_name, {bottom}, {ip_top});
        l.weights.push_back(Weight(f.floats(), true));
        l.weights.push_back(Weight(bias, false));
        lp = &l;
    }
    if (ip_top == top)
    {
        finish_with_activation(*lp, o.activation, top, out_shape);
        return;
    }
    // keep_num_dims / rank changes: the activation on the InnerProduct, then a reshape
    if (o.activation == ACT_RELU)
        set_activation(*lp, ACTIVATION_RELU, {});
    else if (o.activation == ACT_RELU6 || o.activation == ACT_RELU_N1_TO_1)
        set_activation(*lp, ACTIVATION_CLIP,
                       o.activation == ACT_RELU6 ? std::vector<float>{0.f, 6.f} : std::vector<float>{-1.f, 1.f});
    else if (o.activation != ACT_NONE)
        throw Unsupported("fused activation " + std::to_string(o.activation) + " with a reshaped output");
    set_output(0, emit_reshape(blob_value(ip_top, kshape), out_shape, cur_name + "_reshape", top));
}

void Converter::op_transpose_conv()
{
    // inputs: output_shape, weights [O, kh, kw, I], input, bias (optional)
    const std::vector<int64_t> osz = const_input(0, "output_shape").ints();
    const Const& f = const_input(1, "weights");
    const Value x = blob_input(2);
    const Options& o = cur->opt;
    if (x.shape.size() != 4 || f.shape.size() != 4 || osz.size() != 4)
        throw ConvertError("expects rank-4 output_shape, weights and input");
    const int64_t oc = f.shape[0], kh = f.shape[1], kw = f.shape[2], ic = f.shape[3];
    if (ic != x.shape[3] || oc <= 0 || osz[3] != oc || osz[0] != 1 || osz[1] <= 0 || osz[2] <= 0 || osz[1] > INT_MAX
        || osz[2] > INT_MAX)
        throw ConvertError("weights " + shape_string(f.shape) + ", input " + shape_string(x.shape) + " and output_shape "
                           + shape_string(osz) + " do not match");
    Options fwd = o;
    fwd.dilation_h = fwd.dilation_w = 1;
    const Geometry geo = window_geometry({1, osz[1], osz[2], oc}, kh, kw, fwd);
    if (geo.oh != x.shape[1] || geo.ow != x.shape[2])
        throw ConvertError("input " + shape_string(x.shape) + " is not the convolution of output_shape " + shape_string(osz));
    const int64_t full_h = (x.shape[1] - 1) * geo.sh + kh;
    const int64_t full_w = (x.shape[2] - 1) * geo.sw + kw;
    int64_t pb = full_h - osz[1] - geo.pt, pr = full_w - osz[2] - geo.pl;
    const int64_t opad_h = pb < 0 ? -pb : 0, opad_w = pr < 0 ? -pr : 0;
    pb = std::max(pb, (int64_t)0);
    pr = std::max(pr, (int64_t)0);
    std::vector<float> w((size_t)f.count());
    for (int64_t a = 0; a < oc; a++)
        for (int64_t i = 0; i < ic; i++)
            for (int64_t y = 0; y < kh; y++)
                for (int64_t xx = 0; xx < kw; xx++)
                    w[(size_t)(((a * ic + i) * kh + y) * kw + xx)] = (float)f.v[(size_t)(((a * kh + y) * kw + xx) * ic + i)];
    std::vector<float> bias((size_t)oc, 0.f);
    if (has_input(3))
    {
        const Const& b = const_input(3, "bias");
        if (b.count() != oc)
            throw ConvertError("bias has " + std::to_string(b.count()) + " values for " + std::to_string(oc) + " outputs");
        bias = b.floats();
    }
    const std::string top = out_blob();
    DeconvolutionSpec ds;
    ds.num_output = (int)oc;
    Geometry kg = geo;
    kg.pb = pb;
    kg.pr = pr;
    set_conv_window(ds, kg);
    ds.bias_term = 1;
    ds.weight_data_size = (int)w.size();
    ds.output_pad_right = (int)opad_w;
    ds.output_pad_bottom = (int)opad_h;
    Layer& l = emit(ds, cur_name, {x.blob}, {top});
    l.weights.push_back(Weight(w, true));
    l.weights.push_back(Weight(bias, false));
    finish_with_activation(l, o.activation, top, {1, osz[1], osz[2], oc});
}

void Converter::op_pool()
{
    const Value x = blob_input(0);
    const Options& o = cur->opt;
    if (x.shape.size() != 4)
        throw Unsupported("input of rank " + std::to_string(x.shape.size()));
    Options po = o;
    po.dilation_h = po.dilation_w = 1;
    const Geometry geo = window_geometry(x.shape, o.filter_h, o.filter_w, po);
    const std::string top = out_blob();
    PoolingSpec ps;
    ps.pooling_type = cur->code == OP_MAX_POOL_2D ? PoolingSpec::MAX : PoolingSpec::AVG;
    ps.kernel((int)geo.kw, (int)geo.kh).stride((int)geo.sw, (int)geo.sh);
    ps.pads((int)geo.pl, (int)geo.pr, (int)geo.pt, (int)geo.pb);
    ps.pad_mode = 1;                  // valid: the explicit pads above, floor
    ps.avgpool_count_include_pad = 0; // TFLite's average excludes the padding
    const Shape out = {1, geo.oh, geo.ow, x.shape[3]};
    if (o.activation == ACT_NONE)
    {
        emit(ps, cur_name, {x.blob}, {top});
    }
    else
    {
        const std::string pre = g.unique_blob_name(top + "_pre");
        emit(ps, cur_name, {x.blob}, {pre});
        fused_activation(pre, top, o.activation, cur_name + "_act");
    }
    set_output(0, blob_value(top, out));
}

Shape broadcast_shape(const Shape& a, const Shape& b)
{
    const size_t r = std::max(a.size(), b.size());
    Shape out(r);
    for (size_t i = 0; i < r; i++)
    {
        const int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
        const int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
        if (da != db && da != 1 && db != 1)
            throw ConvertError("cannot broadcast " + shape_string(a) + " and " + shape_string(b));
        out[i] = da == 1 ? db : da;
    }
    return out;
}

void Converter::op_binary(int code)
{
    const Value a = input(0);
    const Value b = input(1);
    int op = BinaryOp::Operation_ADD;
    switch (code)
    {
    case OP_ADD: op = BinaryOp::Operation_ADD; break;
    case OP_SUB: op = BinaryOp::Operation_SUB; break;
    case OP_MUL: op = BinaryOp::Operation_MUL; break;
    case OP_DIV: op = BinaryOp::Operation_DIV; break;
    case OP_MAXIMUM: op = BinaryOp::Operation_MAX; break;
    case OP_MINIMUM: op = BinaryOp::Operation_MIN; break;
    case OP_SQUARED_DIFFERENCE: op = BinaryOp::Operation_SUB; break;
    }
    const int act = cur->opt.activation;
    if (a.is_const && b.is_const)
    {
        // constants (e.g. scales computed in the graph): evaluated here
        Const c;
        c.shape = broadcast_shape(a.shape, b.shape);
        const int64_t n = shape_count(c.shape);
        c.v.resize((size_t)n);
        for (int64_t i = 0; i < n; i++)
        {
            auto at = [&](const Const& k) {
                int64_t idx = 0, rem = i, stride = 1;
                std::vector<int64_t> coord(c.shape.size());
                for (size_t d = c.shape.size(); d-- > 0;)
                {
                    coord[d] = rem % c.shape[d];
                    rem /= c.shape[d];
                }
                for (size_t d = k.shape.size(); d-- > 0;)
                {
                    const size_t cd = d + c.shape.size() - k.shape.size();
                    idx += (k.shape[d] == 1 ? 0 : coord[cd]) * stride;
                    stride *= k.shape[d];
                }
                return k.v[(size_t)idx];
            };
            double r = BinaryOp::apply(op, (float)at(a.c), (float)at(b.c));
            if (code == OP_SQUARED_DIFFERENCE)
                r *= r;
            c.v[(size_t)i] = r;
        }
        if (act != ACT_NONE)
            throw Unsupported("fused activation on constants");
        set_output(0, const_value(c));
        return;
    }
    const Shape out = broadcast_shape(a.shape, b.shape);
    const std::string top = out_blob();
    const bool sq = code == OP_SQUARED_DIFFERENCE;
    const std::string res = act != ACT_NONE || sq ? g.unique_blob_name(top + "_pre") : top;
    const Value& x = a.is_const ? b : a;
    const Value& k = a.is_const ? a : b;
    if (k.is_const && k.c.count() == 1)
    {
        int sop = op;
        if (a.is_const) // scalar on the left: b - a, b / a
            sop = op == BinaryOp::Operation_SUB ? BinaryOp::Operation_RSUB : op == BinaryOp::Operation_DIV ? BinaryOp::Operation_RDIV : op;
        emit(BinaryOpSpec::scalar(sop, (float)k.c.v[0]), cur_name, {x.blob}, {res});
    }
    else
    {
        const size_t r = out.size();
        std::string ba, bb;
        for (int side = 0; side < 2; side++)
        {
            const Value& v = side == 0 ? a : b;
            std::string& blob = side == 0 ? ba : bb;
            if (v.is_const)
                blob = emit_memorydata(v.c, r, cur_name + (side ? "_b" : "_a"));
            else
                blob = expand_rank(v, r, cur_name + (side ? "_b" : "_a")).blob;
        }
        emit(BinaryOpSpec::op(op), cur_name, {ba, bb}, {res});
    }
    std::string last = res;
    if (sq)
    {
        const std::string t2 = act != ACT_NONE ? g.unique_blob_name(top + "_sq") : top;
        emit(UnaryOpSpec::op(UnaryOp::Operation_SQUARE), cur_name + "_square", {res}, {t2});
        last = t2;
    }
    if (act != ACT_NONE)
        fused_activation(last, top, act, cur_name + "_act");
    set_output(0, blob_value(top, out));
}

void Converter::op_unary()
{
    const Value x = input(0);
    if (x.is_const)
        throw Unsupported("activation of a constant");
    const std::string top = out_blob();
    switch (cur->code)
    {
    case OP_RELU:
    {
        ReLUSpec s;
        emit(s, cur_name, {x.blob}, {top});
        break;
    }
    case OP_RELU6:
    case OP_RELU_N1_TO_1:
        fused_activation(x.blob, top, cur->code == OP_RELU6 ? ACT_RELU6 : ACT_RELU_N1_TO_1, cur_name);
        break;
    case OP_LEAKY_RELU:
    {
        ReLUSpec s;
        s.slope = cur->opt.alpha;
        emit(s, cur_name, {x.blob}, {top});
        break;
    }
    case OP_LOGISTIC: emit(PlainSpec("Sigmoid"), cur_name, {x.blob}, {top}); break;
    case OP_TANH: emit(PlainSpec("TanH"), cur_name, {x.blob}, {top}); break;
    case OP_HARD_SWISH:
    {
        HardSigmoidSpec s;
        s.type = "HardSwish";
        s.alpha = 1.f / 6;
        s.beta = 0.5f;
        emit(s, cur_name, {x.blob}, {top});
        break;
    }
    case OP_ELU:
    {
        ELUSpec s;
        s.alpha = 1.f;
        emit(s, cur_name, {x.blob}, {top});
        break;
    }
    case OP_GELU:
    {
        GELUSpec s;
        s.fast_gelu = cur->opt.approximate ? 1 : 0;
        emit(s, cur_name, {x.blob}, {top});
        break;
    }
    default:
    {
        int u = -1;
        switch (cur->code)
        {
        case OP_ABS: u = UnaryOp::Operation_ABS; break;
        case OP_NEG: u = UnaryOp::Operation_NEG; break;
        case OP_SQUARE: u = UnaryOp::Operation_SQUARE; break;
        case OP_SQRT: u = UnaryOp::Operation_SQRT; break;
        case OP_RSQRT: u = UnaryOp::Operation_RSQRT; break;
        case OP_EXP: u = UnaryOp::Operation_EXP; break;
        case OP_LOG: u = UnaryOp::Operation_LOG; break;
        }
        if (u < 0)
            throw Unsupported("unary op");
        emit(UnaryOpSpec::op(u), cur_name, {x.blob}, {top});
    }
    }
    set_output(0, blob_value(top, x.shape));
}

void Converter::op_prelu()
{
    const Value x = blob_input(0);
    const Const& alpha = const_input(1, "alpha");
    const int64_t C = x.shape.empty() ? 1 : x.shape.back();
    // one slope, or one per channel (alpha of shape [C], [1, 1, C], ...)
    const int64_t n = alpha.count();
    bool per_channel = n == C && !alpha.shape.empty() && alpha.shape.back() == C;
    if (n != 1 && !per_channel)
        throw Unsupported("alpha of shape " + shape_string(alpha.shape) + " is not per channel");
    if (per_channel && x.shape.size() == 3)
        throw Unsupported("per-channel alpha on a rank-3 input");
    const std::string top = out_blob();
    PReLUSpec s;
    s.num_slope = (int)n;
    Layer& l = emit(s, cur_name, {x.blob}, {top});
    l.weights.push_back(Weight(alpha.floats(), false));
    set_output(0, blob_value(top, x.shape));
}

void Converter::op_reduce()
{
    const Value x = blob_input(0);
    const std::vector<int64_t> raw_axes = const_input(1, "reduction axes").ints();
    const bool keep = cur->opt.keep_dims;
    const size_t r = x.shape.size();
    std::vector<int64_t> axes;
    for (int64_t a : raw_axes)
    {
        if (a < 0)
            a += (int64_t)r;
        if (a < 0 || a >= (int64_t)r)
            throw ConvertError("reduction axis out of range");
        if (std::find(axes.begin(), axes.end(), a) == axes.end())
            axes.push_back(a);
    }
    std::sort(axes.begin(), axes.end());
    Shape kept = x.shape, dropped;
    for (size_t i = 0; i < r; i++)
    {
        if (std::find(axes.begin(), axes.end(), (int64_t)i) != axes.end())
            kept[i] = 1;
        else
            dropped.push_back(x.shape[i]);
    }
    const Shape out_shape = keep ? kept : dropped;
    const std::string top = out_blob();
    const int code = cur->code;
    if (r == 4 && axes == std::vector<int64_t>{1, 2} && (code == OP_MEAN || code == OP_REDUCE_MAX))
    {
        const std::string pooled = keep ? g.unique_blob_name(top + "_pooled") : top;
        PoolingSpec ps;
        ps.pooling_type = code == OP_REDUCE_MAX ? PoolingSpec::MAX : PoolingSpec::AVG;
        ps.global_pooling = 1;
        emit(ps, keep ? cur_name + "_pool" : cur_name, {x.blob}, {pooled});
        Value v = blob_value(pooled, {1, x.shape[3]});
        if (keep)
            v = emit_reshape(v, out_shape, cur_name, top);
        set_output(0, v);
        return;
    }
    if (axes.empty())
        throw Unsupported("no axes");
    const int op = code == OP_SUM ? Reduction::OP_SUM : code == OP_MEAN ? Reduction::OP_MEAN : Reduction::OP_MAX;
    std::vector<int> kaxes;
    for (int64_t a : axes)
        kaxes.push_back(kaxis(a, r));
    std::sort(kaxes.begin(), kaxes.end());
    const bool reshape_after = !keep && r == 4;
    const std::string red = reshape_after ? g.unique_blob_name(top + "_keep") : top;
    ReductionSpec rs;
    rs.operation = op;
    rs.reduce_all = 0;
    rs.coeff = 1.f;
    rs.axes = kaxes;
    rs.keepdims = keep || reshape_after ? 1 : 0;
    rs.fixbug0 = 1;
    emit(rs, reshape_after ? cur_name + "_keep" : cur_name, {x.blob}, {red});
    Value v = blob_value(red, reshape_after ? kept : out_shape);
    if (reshape_after)
        v = emit_reshape(v, out_shape, cur_name, top);
    set_output(0, v);
}

void Converter::op_reshape()
{
    const Value x = input(0);
    Shape target = tensor_shape(cur->outputs.at(0));
    if (cur->code == OP_SQUEEZE || cur->code == OP_EXPAND_DIMS || cur->code == OP_RESHAPE)
    {
        // the output tensor's declared shape is the result (static shapes);
        // check it against the element count
        if (shape_count(target) != shape_count(x.shape))
            throw ConvertError("output shape " + shape_string(target) + " does not hold the input " + shape_string(x.shape));
    }
    if (x.is_const)
    {
        Const c = x.c;
        c.shape = target;
        set_output(0, const_value(c));
        return;
    }
    // rows of a rank-2 result keep a batch of 1: [N, K] is [1, N, K]
    if (target.size() == 2 && target[0] > 1)
        target.insert(target.begin(), 1);
    if (target.empty())
        target = {1};
    set_output(0, emit_reshape(x, target, cur_name, out_blob()));
}

void Converter::op_concat()
{
    const int count = (int)cur->inputs.size();
    if (count < 1)
        throw ConvertError("no inputs");
    std::vector<Value> ins;
    size_t r = 0;
    bool all_const = true;
    for (int i = 0; i < count; i++)
    {
        ins.push_back(input(i));
        if (!ins.back().is_const)
        {
            r = ins.back().shape.size();
            all_const = false;
        }
    }
    if (all_const)
        throw Unsupported("concatenation of constants");
    const int64_t axis = cur->opt.axis < 0 ? cur->opt.axis + (int64_t)r : cur->opt.axis;
    const int ka = kaxis(axis, r);
    std::vector<std::string> bottoms;
    Shape out;
    for (const Value& v : ins)
    {
        if (v.shape.size() != r)
            throw ConvertError("concatenation of inputs with different ranks");
        if (out.empty())
        {
            out = v.shape;
        }
        else
        {
            for (size_t i = 0; i < r; i++)
                if ((int64_t)i != axis && v.shape[i] != out[i])
                    throw ConvertError("concatenation of " + shape_string(v.shape) + " and " + shape_string(out));
            out[(size_t)axis] += v.shape[(size_t)axis];
        }
        bottoms.push_back(v.is_const ? emit_memorydata(v.c, r, cur_name) : v.blob);
    }
    const std::string top = out_blob();
    const int act = cur->opt.activation;
    const std::string res = act != ACT_NONE ? g.unique_blob_name(top + "_pre") : top;
    emit(ConcatSpec::on(ka), cur_name, bottoms, {res});
    if (act != ACT_NONE)
        fused_activation(res, top, act, cur_name + "_act");
    set_output(0, blob_value(top, out));
}

void Converter::op_pad()
{
    const Value x = blob_input(0);
    const Const& pc = const_input(1, "paddings");
    const size_t r = x.shape.size();
    if (pc.shape.size() != 2 || pc.shape[0] != (int64_t)r || pc.shape[1] != 2)
        throw ConvertError("paddings of shape " + shape_string(pc.shape) + " for a rank " + std::to_string(r) + " input");
    const std::vector<int64_t> p = pc.ints();
    for (int64_t v : p)
        if (v < 0 || v > 65536)
            throw Unsupported("padding " + std::to_string(v));
    float value = 0.f;
    if (cur->code == OP_PADV2 && has_input(2))
    {
        const Const& vc = const_input(2, "constant value");
        if (vc.count() != 1)
            throw ConvertError("constant value must be a scalar");
        value = (float)vc.v[0];
    }
    if (r >= 2 && (p[0] || p[1]))
        throw Unsupported("padding of the batch axis");
    int top = 0, bottom = 0, left = 0, right = 0, front = 0, behind = 0;
    if (r == 4)
        top = (int)p[2], bottom = (int)p[3], left = (int)p[4], right = (int)p[5], front = (int)p[6], behind = (int)p[7];
    else if (r == 3)
        top = (int)p[2], bottom = (int)p[3], left = (int)p[4], right = (int)p[5];
    else if (r == 2)
        left = (int)p[2], right = (int)p[3];
    else
        throw Unsupported("rank " + std::to_string(r));
    Shape out = x.shape;
    for (size_t i = 0; i < r; i++)
        out[i] += p[2 * i] + p[2 * i + 1];
    const std::string t = out_blob();
    PaddingSpec ps;
    ps.top = top;
    ps.bottom = bottom;
    ps.left = left;
    ps.right = right;
    ps.pad_type = Padding::PAD_CONSTANT;
    ps.value = value;
    if (front || behind)
    {
        ps.front = front;
        ps.behind = behind;
    }
    emit(ps, cur_name, {x.blob}, {t});
    set_output(0, blob_value(t, out));
}

void Converter::op_softmax()
{
    const Value x = blob_input(0);
    const float beta = cur->opt.beta;
    std::string in = x.blob;
    const std::string top = out_blob();
    if (beta != 1.f)
    {
        in = g.unique_blob_name(top + "_beta");
        emit(BinaryOpSpec::scalar(BinaryOp::Operation_MUL, beta), cur_name + "_beta", {x.blob}, {in});
    }
    SoftmaxSpec sm;
    sm.axis = kaxis((int64_t)x.shape.size() - 1, x.shape.size());
    sm.fixbug0 = 1;
    emit(sm, cur_name, {in}, {top});
    set_output(0, blob_value(top, x.shape));
}

void Converter::op_resize()
{
    const Value x = blob_input(0);
    if (x.shape.size() != 4)
        throw Unsupported("input of rank " + std::to_string(x.shape.size()));
    const std::vector<int64_t> size = const_input(1, "size").ints();
    if (size.size() != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > INT_MAX || size[1] > INT_MAX)
        throw ConvertError("size must hold two positive ints");
    const bool align = cur->opt.align_corners, half = cur->opt.half_pixel_centers;
    const bool nearest = cur->code == OP_RESIZE_NEAREST_NEIGHBOR;
    if (nearest)
    {
        if (align || (half && (size[0] % x.shape[1] || size[1] % x.shape[2])))
            throw Unsupported(align ? "align_corners" : "half_pixel_centers with a fractional scale");
    }
    else if (!align && !half)
    {
        throw Unsupported("bilinear without half_pixel_centers or align_corners (TF1's legacy mode)");
    }
    const std::string top = out_blob();
    InterpSpec is;
    is.resize_type = nearest ? 1 : 2;
    is.output_height = (int)size[0];
    is.output_width = (int)size[1];
    is.align_corner = align ? 1 : 0;
    emit(is, cur_name, {x.blob}, {top});
    set_output(0, blob_value(top, {1, size[0], size[1], x.shape[3]}));
}

void Converter::op_strided_slice()
{
    const Value x = input(0);
    const std::vector<int64_t> begin = const_input(1, "begin").ints();
    const std::vector<int64_t> end = const_input(2, "end").ints();
    const std::vector<int64_t> strides = const_input(3, "strides").ints();
    const Options& o = cur->opt;
    const size_t r = x.shape.size();
    if (begin.size() != r || end.size() != r || strides.size() != r)
        throw Unsupported("begin/end/strides of another length than the input's rank");
    if (o.ellipsis_mask || o.new_axis_mask)
        throw Unsupported("ellipsis or new-axis mask");
    std::vector<int64_t> bs(r), st(r);
    Shape full = x.shape;
    for (size_t i = 0; i < r; i++)
    {
        const int64_t d = x.shape[i];
        int64_t s = strides[i], b = begin[i], e = end[i];
        if (s <= 0)
            throw Unsupported("stride " + std::to_string(s));
        if (o.begin_mask & (1 << i))
            b = 0;
        if (o.end_mask & (1 << i))
            e = d;
        else if (o.offset)
            e = b + e;
        if (b < 0)
            b += d;
        if (e < 0)
            e += d;
        if (o.shrink_axis_mask & (1 << i))
        {
            e = b + 1;
            s = 1;
        }
        b = std::min(std::max(b, (int64_t)0), d);
        e = std::min(std::max(e, b), d);
        bs[i] = b;
        st[i] = s;
        full[i] = (e - b + s - 1) / s;
    }
    Shape out;
    for (size_t i = 0; i < r; i++)
        if (!(o.shrink_axis_mask & (1 << i)))
            out.push_back(full[i]);
    if (x.is_const)
    {
        // shape arithmetic (Keras' Flatten: SHAPE -> STRIDED_SLICE -> PACK)
        Const c;
        c.shape = out;
        const int64_t n = shape_count(full);
        for (int64_t k = 0; k < n; k++)
        {
            int64_t rem = k, idx = 0, stride = 1;
            std::vector<int64_t> coord(r);
            for (size_t d = r; d-- > 0;)
            {
                coord[d] = rem % full[d];
                rem /= full[d];
            }
            for (size_t d = r; d-- > 0;)
            {
                idx += (bs[d] + coord[d] * st[d]) * stride;
                stride *= x.shape[d];
            }
            c.v.push_back(x.c.v.at((size_t)idx));
        }
        set_output(0, const_value(c));
        return;
    }
    std::vector<int> starts, ends, axes;
    for (size_t i = 0; i < r; i++)
    {
        if (st[i] != 1 && full[i] > 1)
            throw Unsupported("stride " + std::to_string(st[i]) + " on an activation");
        if (bs[i] == 0 && full[i] == x.shape[i])
            continue;
        starts.push_back((int)bs[i]);
        ends.push_back((int)(bs[i] + full[i]));
        axes.push_back(kaxis((int64_t)i, r));
    }
    const std::string top = out_blob();
    Value v = x;
    if (!axes.empty())
    {
        const bool shrink = out != full;
        const std::string crop = shrink ? g.unique_blob_name(top + "_crop") : top;
        CropSpec cs;
        cs.starts = starts;
        cs.ends = ends;
        cs.axes = axes;
        emit(cs, shrink ? cur_name + "_crop" : cur_name, {x.blob}, {crop});
        v = blob_value(crop, full);
    }
    if (out != full)
    {
        if (out.size() == 2 && out[0] > 1)
            out.insert(out.begin(), 1);
        v = emit_reshape(v, out, cur_name, top);
    }
    set_output(0, v);
}

// ops on shapes: SHAPE of an activation (static), PACK / CONCATENATION / CAST of constants
void Converter::op_shape_const()
{
    if (cur->code == OP_SHAPE)
    {
        const Value& x = input(0);
        Const c;
        c.shape = {(int64_t)x.shape.size()};
        // the TFLite shape (a rank-2 [N, K] with N > 1 is held as [1, N, K])
        const Shape s = tensor_shape(cur->inputs[0]);
        for (int64_t d : s)
            c.v.push_back((double)d);
        c.shape = {(int64_t)s.size()};
        set_output(0, const_value(c));
        return;
    }
    if (cur->code == OP_CAST)
    {
        const Const& a = const_input(0, "CAST input");
        Const c = a;
        const int type = tensor(cur->outputs.at(0)).type;
        if (type == TT_INT32 || type == TT_INT64 || type == TT_INT8 || type == TT_UINT8 || type == TT_INT16)
            for (double& v : c.v)
                v = std::trunc(v);
        set_output(0, const_value(c));
        return;
    }
    // PACK: stack scalars / equal-shape constants along axis
    std::vector<const Const*> ins;
    for (size_t i = 0; i < cur->inputs.size(); i++)
        ins.push_back(&const_input((int)i, "PACK input"));
    if (ins.empty())
        throw ConvertError("no inputs");
    const Shape base = ins[0]->shape;
    int64_t axis = cur->opt.axis;
    if (axis < 0)
        axis += (int64_t)base.size() + 1;
    if (axis < 0 || axis > (int64_t)base.size())
        throw ConvertError("axis out of range");
    for (const Const* k : ins)
        if (k->shape != base)
            throw ConvertError("PACK of constants of different shapes");
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < base.size(); d++)
        (d < (size_t)axis ? outer : inner) *= base[d];
    Const c;
    c.shape = base;
    c.shape.insert(c.shape.begin() + axis, (int64_t)ins.size());
    for (int64_t a = 0; a < outer; a++)
        for (const Const* k : ins)
            for (int64_t b = 0; b < inner; b++)
                c.v.push_back(k->v[(size_t)(a * inner + b)]);
    set_output(0, const_value(c));
}

void Converter::op_transpose()
{
    const Value x = blob_input(0);
    const std::vector<int64_t> p = const_input(1, "perm").ints();
    const size_t r = x.shape.size();
    if (p.size() != r)
        throw ConvertError("perm length differs from the input rank");
    Shape out(r);
    std::vector<bool> seen(r, false);
    for (size_t i = 0; i < r; i++)
    {
        if (p[i] < 0 || p[i] >= (int64_t)r || seen[(size_t)p[i]])
            throw ConvertError("perm is not a permutation");
        seen[(size_t)p[i]] = true;
        out[i] = x.shape[(size_t)p[i]];
    }
    if (r < 2 || p[0] != 0 || r > 4)
        throw Unsupported(r > 4 ? "rank above 4" : "moving the batch axis");
    // kite letters of the input's TFLite axes: rank 4 is CHW, rank 3 is (h, w)
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
        set_output(0, blob_value(x.blob, out)); // identity on kite's layout
        return;
    }
    const std::string top = out_blob();
    emit(PermuteSpec::order(order), cur_name, {x.blob}, {top});
    set_output(0, blob_value(top, out));
}

void Converter::op_batch_matmul()
{
    const Value a = blob_input(0);
    const Value& bv = input(1);
    if (!bv.is_const)
        throw Unsupported("both operands are activations");
    if (cur->opt.adj_x)
        throw Unsupported("adj_x");
    const Const& b = bv.c;
    Shape bs = b.shape;
    while (bs.size() > 2 && bs[0] == 1)
        bs.erase(bs.begin());
    if (bs.size() != 2 || a.shape.size() < 2 || a.shape.size() > 3)
        throw Unsupported("operands of shapes " + shape_string(a.shape) + " and " + shape_string(b.shape));
    const bool tb = cur->opt.adj_y;
    const int64_t K = tb ? bs[1] : bs[0], M = tb ? bs[0] : bs[1];
    if (K != a.shape.back() || M <= 0)
        throw ConvertError("BATCH_MATMUL of " + shape_string(a.shape) + " and " + shape_string(b.shape));
    std::vector<float> w((size_t)(K * M));
    for (int64_t mm = 0; mm < M; mm++)
        for (int64_t k = 0; k < K; k++)
            w[(size_t)(mm * K + k)] = (float)b.v[(size_t)(tb ? mm * K + k : k * M + mm)];
    Shape out = a.shape;
    out.back() = M;
    const std::string top = out_blob();
    InnerProductSpec ip;
    ip.num_output = (int)M;
    ip.bias_term = 0;
    ip.weight_data_size = (int)w.size();
    Layer& l = emit(ip, cur_name, {a.blob}, {top});
    l.weights.push_back(Weight(w, true));
    set_output(0, blob_value(top, out));
}

void Converter::convert_op(const Operator& op)
{
    switch (op.code)
    {
    case OP_CONV_2D: return op_conv(false);
    case OP_DEPTHWISE_CONV_2D: return op_conv(true);
    case OP_FULLY_CONNECTED: return op_fully_connected();
    case OP_TRANSPOSE_CONV: return op_transpose_conv();
    case OP_AVERAGE_POOL_2D:
    case OP_MAX_POOL_2D: return op_pool();
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_SQUARED_DIFFERENCE: return op_binary(op.code);
    case OP_RELU:
    case OP_RELU6:
    case OP_RELU_N1_TO_1:
    case OP_LEAKY_RELU:
    case OP_LOGISTIC:
    case OP_TANH:
    case OP_HARD_SWISH:
    case OP_ELU:
    case OP_GELU:
    case OP_ABS:
    case OP_NEG:
    case OP_SQUARE:
    case OP_SQRT:
    case OP_RSQRT:
    case OP_EXP:
    case OP_LOG: return op_unary();
    case OP_PRELU: return op_prelu();
    case OP_MEAN:
    case OP_SUM:
    case OP_REDUCE_MAX: return op_reduce();
    case OP_RESHAPE:
    case OP_SQUEEZE:
    case OP_EXPAND_DIMS: return op_reshape();
    case OP_CONCATENATION: return op_concat();
    case OP_PAD:
    case OP_PADV2: return op_pad();
    case OP_SOFTMAX: return op_softmax();
    case OP_RESIZE_BILINEAR:
    case OP_RESIZE_NEAREST_NEIGHBOR: return op_resize();
    case OP_STRIDED_SLICE: return op_strided_slice();
    case OP_TRANSPOSE: return op_transpose();
    case OP_SHAPE:
    case OP_PACK:
    case OP_CAST: return op_shape_const();
    case OP_BATCH_MATMUL: return op_batch_matmul();
    case OP_QUANTIZE:
    case OP_DEQUANTIZE:
    {
        // values are real numbers in kite: (de)quantization is the identity;
        // a DEQUANTIZE of fp16 / int8 weights folds into a constant
        const Value v = input(0);
        if (v.is_const)
        {
            Const c = v.c;
            set_output(0, const_value(c));
            return;
        }
        set_output(0, v);
        return;
    }
    }
    throw Unsupported("");
}

void Converter::add_input(int index)
{
    const Tensor& t = tensor(index);
    Shape s = tensor_shape(index);
    if (s.size() >= 2 && s[0] == -1)
        s[0] = 1;
    for (int64_t d : s)
        if (d <= 0)
            throw ConvertError("input '" + t.name + "' has shape " + shape_string(s) + " with an unknown dimension");
    if (t.type != TT_FLOAT32 && t.type != TT_INT8 && t.type != TT_UINT8)
        throw ConvertError("input '" + t.name + "' has type " + tensor_type_name(t.type) + " (kite takes FLOAT32 or quantized int8/uint8 as real values)");
    const std::string name = g.unique_blob_name(clean(t.name));
    stats.inputs.push_back(name);
    if (s.size() == 4)
    {
        Layer& in = g.add_input(name);
        set_shape_params(in, source_kdims(s));
        // the Input blob holds HWC (as given); the graph runs on CHW
        Value v = blob_value(name, s);
        if (order_differs(s))
        {
            const std::string top = g.unique_blob_name(name + "_nchw");
            emit(PermuteSpec::order(PERMUTE_HWC_TO_CHW), name + "_to_nchw", {name}, {top});
            v.blob = top;
        }
        else if (source_kdims(s) != kdims(s))
        {
            const std::string top = g.unique_blob_name(name + "_nchw");
            ReshapeSpec rs;
            set_shape_params(emit(rs, name + "_to_nchw", {name}, {top}), kdims(s));
            v.blob = top;
        }
        values[index] = v;
        return;
    }
    Layer& in = g.add_input(name);
    set_shape_params(in, kdims(s));
    values[index] = blob_value(name, s);
}

void Converter::finish_output(int index)
{
    auto it = values.find(index);
    if (it == values.end())
        throw ConvertError("output '" + tensor(index).name + "' was not converted");
    const Value v = it->second;
    if (v.is_const)
        throw ConvertError("output '" + tensor(index).name + "' is a constant");
    std::string name = clean(tensor(index).name);
    // the output keeps TFLite's order and its (cleaned) tensor name
    const bool to_nhwc = v.shape.size() == 4 && source_kdims(v.shape) != kdims(v.shape);
    if (g.producer(name) >= 0 || std::find(stats.inputs.begin(), stats.inputs.end(), name) != stats.inputs.end())
    {
        // the name is taken by another blob: rename that one
        const std::string other = g.unique_blob_name(name + "_");
        for (Layer& l : g.layers)
        {
            for (std::string& b : l.bottoms)
                if (b == name)
                    b = other;
            for (std::string& t : l.tops)
                if (t == name)
                    t = other;
        }
        for (auto& kv : values)
            if (!kv.second.is_const && kv.second.blob == name)
                kv.second.blob = other;
    }
    const Value cur_v = values[index];
    if (!to_nhwc)
    {
        for (Layer& l : g.layers)
        {
            for (std::string& b : l.bottoms)
                if (b == cur_v.blob)
                    b = name;
            for (std::string& t : l.tops)
                if (t == cur_v.blob)
                    t = name;
        }
        for (auto& kv : values)
            if (!kv.second.is_const && kv.second.blob == cur_v.blob)
                kv.second.blob = name;
    }
    else if (order_differs(v.shape))
    {
        emit(PermuteSpec::order(PERMUTE_CHW_TO_HWC), name + "_to_nhwc", {cur_v.blob}, {name});
    }
    else
    {
        ReshapeSpec rs;
        set_shape_params(emit(rs, name + "_to_nhwc", {cur_v.blob}, {name}), source_kdims(v.shape));
    }
    stats.outputs.push_back(name);
}

void Converter::run()
{
    if (m.subgraph_count > 1)
    {
        // control flow (WHILE / IF) lives in further subgraphs; the main one
        // is converted and such ops are reported
    }
    for (int i : m.inputs)
        add_input(i);
    std::set<int> types;
    stats.ops = (int)m.ops.size();
    for (size_t k = 0; k < m.ops.size(); k++)
    {
        const Operator& op = m.ops[k];
        types.insert(op.code);
        cur = &op;
        const std::string type = op.code == OP_CUSTOM ? "CUSTOM:" + op.custom : op_name(op.code);
        const std::string first_out = op.outputs.empty() ? std::string() : tensor(op.outputs[0]).name;
        cur_name = first_out.empty() ? type + "_" + std::to_string(k) : clean(first_out);
        // an op reading the result of an unconverted one is skipped (not reported twice)
        bool skip = false;
        for (int t : op.inputs)
            skip = skip || (t >= 0 && failed.count(t));
        if (skip)
        {
            for (int t : op.outputs)
                failed.insert(t);
            continue;
        }
        try
        {
            convert_op(op);
            for (int t : op.outputs)
                if (!values.count(t))
                    throw ConvertError("output tensor " + std::to_string(t) + " was not produced");
        }
        catch (const Unsupported& e)
        {
            unsupported.add(type, first_out.empty() ? cur_name : first_out, e.what());
            for (int t : op.outputs)
                failed.insert(t);
        }
        catch (const ConvertError& e)
        {
            fail("operator", std::to_string(k) + " '" + (first_out.empty() ? cur_name : first_out) + "'", type, e.what());
        }
    }
    stats.op_types = (int)types.size();
    if (!unsupported.empty())
        return;
    for (int i : m.outputs)
        finish_output(i);
}

} // namespace

int convert_model(const uint8_t* data, size_t size, const ConvertOptions& opt, Graph& g, UnsupportedOps& unsupported,
                  ConvertStats& stats, std::string& error)
{
    try
    {
        Model m;
        parse_model(data, size, m);
        if (m.inputs.empty())
            throw ConvertError("the main subgraph has no inputs");
        if (m.outputs.empty())
            throw ConvertError("the main subgraph has no outputs");
        Converter c(m, opt, g, unsupported, stats);
        c.run();
    }
    catch (const std::bad_alloc&)
    {
        error = "out of memory";
        return -1;
    }
    catch (const std::exception& e)
    {
        error = e.what();
        return -1;
    }
    return 0;
}

} // namespace tflite
} // namespace convert
} // namespace kite
