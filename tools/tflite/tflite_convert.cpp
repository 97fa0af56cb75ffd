#include "tflite_convert_impl.h"

#include "layer/binaryop.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

namespace kite {
namespace convert {
namespace tflite {

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

namespace {

void same_pads(int64_t in, int64_t ek, int64_t s, int64_t& before, int64_t& after)
{
    const int64_t out = (in + s - 1) / s;
    const int64_t total = std::max((out - 1) * s + ek - in, (int64_t)0);
    before = total / 2;
    after = total - before;
}

} // namespace

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
    for (const Operator& op : m.ops)
        for (int t : op.inputs)
            consumers[t]++;
    for (int t : m.outputs)
        consumers[t]++;
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
