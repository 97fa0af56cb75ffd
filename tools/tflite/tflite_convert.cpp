#include "tflite_convert_impl.h"

#include "mat.h" // float16_to_float32

#include "layer/binaryop.h"
#include "layer/convolution.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstring>

namespace kite {
namespace convert {
namespace tflite {

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
        nhwc::same_pads(x[1], ekh, g.sh, g.pt, g.pb);
        nhwc::same_pads(x[2], ekw, g.sw, g.pl, g.pr);
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
    if ((uint64_t)n * es != (uint64_t)t.size) // 64-bit: no wrap on 32-bit targets
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
            v = float16_to_float32(h);
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

// x + zero_point * scale: TFLite's asymmetric int8 value q of x becomes
// kite's symmetric round(x' / scale) = q - tflite_zp + zero_point
std::string Converter::shift_input(const std::string& blob, int zero_point, float scale, int tensor_index)
{
    if (zero_point == 0)
        return blob;
    const auto key = std::make_pair(blob, zero_point);
    auto it = shifted.find(key);
    if (it != shifted.end())
        return it->second;
    if (tensor_index >= 0 && fold_shift(blob, tensor_index, (float)zero_point * scale))
    {
        shifted[key] = blob;
        return blob;
    }
    const std::string top = g.unique_blob_name(blob + "_zp");
    emit(BinaryOpSpec::scalar(BinaryOp::Operation_ADD, (float)zero_point * scale), top, {blob}, {top});
    shifted[key] = top;
    return top;
}

// The shift x + c folded into the layer that writes x, where this operator
// is x's only reader: a Convolution / ConvolutionDepthWise / InnerProduct with
// a bias and no activation, ReLU or Clip, as act(v) + c = act'(v + c): the
// bias + c, ReLU -> Clip(c, FLT_MAX), Clip(lo, hi) -> Clip(lo + c, hi + c).
// One layer and one pass over the blob fewer (TFLite int8 MobileNetV2: 40 of
// its 62 BinaryOps); the values differ from the unfolded graph's by the
// rounding of bias + c only.
bool Converter::fold_shift(const std::string& blob, int tensor_index, float c)
{
    auto rc = consumers.find(tensor_index);
    if (rc == consumers.end() || rc->second != 1 || g.layers.empty())
        return false;
    Layer* producer = nullptr;
    for (size_t i = g.layers.size(); i-- > 0;)
    {
        Layer& l = g.layers[i];
        for (const std::string& b : l.bottoms)
            if (b == blob)
                return false; // already read (an activation layer, a shift kept for another zero point)
        if (std::find(l.tops.begin(), l.tops.end(), blob) != l.tops.end())
        {
            producer = &l;
            break;
        }
    }
    if (!producer || producer->tops.size() != 1
        || (producer->type != "Convolution" && producer->type != "ConvolutionDepthWise" && producer->type != "InnerProduct"))
        return false;
    if (producer->params.get_int(Convolution::PARAM_BIAS_TERM, 0) != 1 || producer->weights.size() < 2)
        return false;
    const int num_output = producer->params.get_int(Convolution::PARAM_NUM_OUTPUT, 0);
    Weight& bias = producer->weights[1];
    if (bias.storage != Weight::FP32 || (int)bias.data.size() != num_output)
        return false;
    const int act = producer->params.get_int(Convolution::PARAM_ACTIVATION_TYPE, ACTIVATION_NONE);
    std::vector<float> ap = producer->params.get_floats(Convolution::PARAM_ACTIVATION_PARAMS);
    if (act == ACTIVATION_RELU)
        set_activation(*producer, ACTIVATION_CLIP, {c, FLT_MAX});
    else if (act == ACTIVATION_CLIP && ap.size() == 2)
        set_activation(*producer, ACTIVATION_CLIP, {ap[0] + c, ap[1] + c});
    else if (act != ACTIVATION_NONE)
        return false;
    for (float& b : bias.data)
        b += c;
    return true;
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

bool Converter::handled(int code)
{
    // the types convert_op has a handler for (it may still refuse a node)
    switch (code)
    {
    case OP_CONV_2D:
    case OP_DEPTHWISE_CONV_2D:
    case OP_FULLY_CONNECTED:
    case OP_TRANSPOSE_CONV:
    case OP_AVERAGE_POOL_2D:
    case OP_MAX_POOL_2D:
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_MAXIMUM:
    case OP_MINIMUM:
    case OP_SQUARED_DIFFERENCE:
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
    case OP_LOG:
    case OP_PRELU:
    case OP_MEAN:
    case OP_SUM:
    case OP_REDUCE_MAX:
    case OP_RESHAPE:
    case OP_SQUEEZE:
    case OP_EXPAND_DIMS:
    case OP_CONCATENATION:
    case OP_PAD:
    case OP_PADV2:
    case OP_SOFTMAX:
    case OP_RESIZE_BILINEAR:
    case OP_RESIZE_NEAREST_NEIGHBOR:
    case OP_STRIDED_SLICE:
    case OP_TRANSPOSE:
    case OP_SHAPE:
    case OP_PACK:
    case OP_CAST:
    case OP_BATCH_MATMUL:
    case OP_QUANTIZE:
    case OP_DEQUANTIZE:
        return true;
    }
    return false;
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
    case OP_CAST:
    case OP_GATHER:
    case OP_REDUCE_PROD: return op_shape_const();
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
        set_shape_params(in, source_dims(s));
        // the Input blob holds HWC (as given); the graph runs on CHW
        Value v = blob_value(name, s);
        if (order_differs(s))
        {
            const std::string top = g.unique_blob_name(name + "_nchw");
            emit(PermuteSpec::order(nhwc::PERMUTE_HWC_TO_CHW), name + "_to_nchw", {name}, {top});
            v.blob = top;
        }
        else if (source_dims(s) != kite_dims(s))
        {
            const std::string top = g.unique_blob_name(name + "_nchw");
            ReshapeSpec rs;
            set_shape_params(emit(rs, name + "_to_nchw", {name}, {top}), kite_dims(s));
            v.blob = top;
        }
        values[index] = v;
        return;
    }
    Layer& in = g.add_input(name);
    set_shape_params(in, kite_dims(s));
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
    const bool to_nhwc = v.shape.size() == 4 && source_dims(v.shape) != kite_dims(v.shape);
    if (g.producer(name) >= 0 || std::find(stats.inputs.begin(), stats.inputs.end(), name) != stats.inputs.end())
    {
        // the name is taken by another blob: rename that one
        const std::string other = g.unique_blob_name(name + "_");
        g.rename_blob(name, other);
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
        emit(PermuteSpec::order(nhwc::PERMUTE_CHW_TO_HWC), name + "_to_nhwc", {cur_v.blob}, {name});
    }
    else
    {
        ReshapeSpec rs;
        set_shape_params(emit(rs, name + "_to_nhwc", {cur_v.blob}, {name}), source_dims(v.shape));
    }
    stats.outputs.push_back(name);
}

void Converter::run()
{
    // the first subgraph is the model; control flow (WHILE / IF) that calls
    // further subgraphs is reported as unsupported
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
        // an op reading the result of an unconverted one is skipped, and
        // reported only when kite has no handler for its type at all (every
        // node of an unsupported type is counted)
        bool skip = false;
        for (int t : op.inputs)
            skip = skip || (t >= 0 && failed.count(t));
        if (skip)
        {
            if (!handled(op.code))
                unsupported.add(type, first_out.empty() ? cur_name : first_out);
            for (int t : op.outputs)
                failed.insert(t);
            continue;
        }
        try
        {
            // every TFLite operator has an output; the handlers read outputs[0]
            if (op.outputs.empty())
                throw ConvertError("the operator has no output tensor");
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
