// tflite2kite: one handler per TFLite op (the Converter: tflite_convert_impl.h)
#include "tflite_convert_impl.h"

#include "layer/binaryop.h"
#include "layer/padding.h"
#include "layer/reduction.h"
#include "layer/unaryop.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace kite {
namespace convert {
namespace tflite {

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
            bottom = shift_input(x.blob, z, sx, cur->inputs[0]);
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
    const Shape x_shape_in = x.shape;
    // rows > 1: the input as [1, rows, K] (kite's 2-D blob: InnerProduct per row)
    Shape in_shape = rows > 1 ? Shape{1, rows, K} : Shape{1, K};
    if (x.shape != in_shape)
        x = emit_reshape(x, in_shape, cur_name + "_flatten", g.unique_blob_name(x.blob + "_flat"));
    Shape out_shape = tensor_shape(cur->outputs[0]);
    const std::vector<int>& sig = tensor(cur->outputs[0]).shape_signature;
    if (shape_count(out_shape) != rows * M && std::find(sig.begin(), sig.end(), -1) != sig.end())
    {
        // a dynamic output (Keras 3's Tensordot: [-1, M]): the rows the input gives
        out_shape = o.keep_num_dims ? x_shape_in : Shape{rows, M};
        if (o.keep_num_dims)
            out_shape.back() = M;
    }
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

const Value* Converter::swish_input(const Value& a, const Value& b) const
{
    for (int side = 0; side < 2; side++)
    {
        const Value& s = side == 0 ? a : b;
        const Value& x = side == 0 ? b : a;
        const int p = g.producer(s.blob);
        if (p >= 0 && g.layers[(size_t)p].type == "Sigmoid" && g.layers[(size_t)p].bottoms.size() == 1
            && g.layers[(size_t)p].bottoms[0] == x.blob)
            return &x;
    }
    return nullptr;
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
    // a per-channel constant on a feature map (a batch norm TFLite could not
    // fold into a convolution: MUL then ADD): Scale, its ADD folded in as the
    // Scale's bias when nothing else reads the product; else Bias
    const int64_t C = x.shape.empty() ? 0 : x.shape.back();
    bool per_channel = k.is_const && !x.is_const && C > 1 && k.c.count() == C && k.shape.size() <= x.shape.size()
                       && (x.shape.size() == 4 || x.shape.size() == 2)
                       && (code == OP_MUL || code == OP_ADD || (code == OP_SUB && b.is_const));
    for (size_t d = 0; per_channel && d + 1 < k.shape.size(); d++)
        per_channel = k.shape[d] == 1;
    if (per_channel)
    {
        std::vector<float> kv = k.c.floats();
        if (code == OP_MUL)
        {
            ScaleSpec ss;
            ss.scale_data_size = (int)C;
            ss.bias_term = 0;
            Layer& l = emit(ss, cur_name, {x.blob}, {res});
            l.weights.push_back(Weight(kv, false));
            if (res == top)
                scale_layer[top] = (int)g.layers.size() - 1;
        }
        else
        {
            if (code == OP_SUB)
                for (float& v : kv)
                    v = -v;
            const int xt = cur->inputs[a.is_const ? 1 : 0];
            auto it = scale_layer.find(x.blob);
            if (it != scale_layer.end() && consumers[xt] == 1 && g.layers[(size_t)it->second].tops[0] == x.blob)
            {
                Layer& l = g.layers[(size_t)it->second];
                ScaleSpec ss;
                ss.scale_data_size = (int)C;
                ss.bias_term = 1;
                ss.write(l.params);
                l.weights.push_back(Weight(kv, false));
                l.tops[0] = res;
                scale_layer.erase(it);
            }
            else
            {
                BiasSpec bs;
                bs.bias_data_size = (int)C;
                Layer& l = emit(bs, cur_name, {x.blob}, {res});
                l.weights.push_back(Weight(kv, false));
            }
        }
    }
    else if (k.is_const && k.c.count() == 1)
    {
        int sop = op;
        if (a.is_const) // scalar on the left: b - a, b / a
            sop = op == BinaryOp::Operation_SUB ? BinaryOp::Operation_RSUB : op == BinaryOp::Operation_DIV ? BinaryOp::Operation_RDIV : op;
        emit(BinaryOpSpec::scalar(sop, (float)k.c.v[0]), cur_name, {x.blob}, {res});
    }
    else if (code == OP_MUL && !a.is_const && !b.is_const && a.shape == b.shape && swish_input(a, b) != nullptr)
    {
        // x * LOGISTIC(x) (Keras' swish / SiLU as TFLite writes it): one Swish;
        // the Sigmoid is left dead when nothing else reads it (finalize removes it)
        emit(PlainSpec("Swish"), cur_name, {swish_input(a, b)->blob}, {res});
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
    const int code = cur->code;
    const int op = code == OP_SUM ? Reduction::OP_SUM : code == OP_MEAN ? Reduction::OP_MEAN : Reduction::OP_MAX;
    const nhwc::ReducePlan p = nhwc::reduce_plan(raw_axes, x.shape, keep, op);
    const std::string top = out_blob();
    if (p.over_hw && (code == OP_MEAN || code == OP_REDUCE_MAX))
    {
        const std::string pooled = keep ? g.unique_blob_name(top + "_pooled") : top;
        PoolingSpec ps;
        ps.pooling_type = code == OP_REDUCE_MAX ? PoolingSpec::MAX : PoolingSpec::AVG;
        ps.global_pooling = 1;
        emit(ps, keep ? cur_name + "_pool" : cur_name, {x.blob}, {pooled});
        Value v = blob_value(pooled, {1, x.shape[3]});
        if (keep)
            v = emit_reshape(v, p.out, cur_name, top);
        set_output(0, v);
        return;
    }
    if (p.axes.empty())
        throw Unsupported("no axes");
    const std::string red = p.reshape_after ? g.unique_blob_name(top + "_keep") : top;
    emit(p.spec, p.reshape_after ? cur_name + "_keep" : cur_name, {x.blob}, {red});
    Value v = blob_value(red, p.reshape_after ? p.kept : p.out);
    if (p.reshape_after)
        v = emit_reshape(v, p.out, cur_name, top);
    set_output(0, v);
}

void Converter::op_reshape()
{
    const Value x = input(0);
    Shape target = tensor_shape(cur->outputs.at(0));
    if (cur->code == OP_SQUEEZE || cur->code == OP_EXPAND_DIMS || cur->code == OP_RESHAPE)
    {
        // the output tensor's declared shape is the result (static shapes);
        // where the converter left it dynamic (1s for unknown sizes, Keras 3's
        // Tensordot), RESHAPE's shape input evaluated here (one -1 resolved);
        // check it against the element count
        if (cur->code == OP_RESHAPE && shape_count(target) != shape_count(x.shape) && cur->inputs.size() > 1
            && cur->inputs[1] >= 0 && input(1).is_const)
        {
            Shape t = input(1).c.ints();
            int64_t known = 1, unknown = -1;
            for (size_t d = 0; d < t.size(); d++)
                if (t[d] == -1 && unknown < 0)
                    unknown = (int64_t)d;
                else
                    known *= t[d];
            if (unknown >= 0 && known > 0)
                t[(size_t)unknown] = shape_count(x.shape) / known;
            target = t;
        }
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
    {
        // shape vectors (Keras 3's Tensordot): evaluated here along the axis
        const Shape& s0 = ins[0].c.shape;
        int64_t axis = cur->opt.axis < 0 ? cur->opt.axis + (int64_t)s0.size() : cur->opt.axis;
        if (axis < 0 || axis >= (int64_t)std::max<size_t>(1, s0.size()) || cur->opt.activation != ACT_NONE)
            throw Unsupported("concatenation of constants on axis " + std::to_string(cur->opt.axis));
        Const c;
        c.shape = s0.empty() ? Shape{1} : s0;
        c.shape[(size_t)axis] = 0;
        int64_t outer = 1;
        for (int64_t d = 0; d < axis; d++)
            outer *= c.shape[(size_t)d];
        std::vector<int64_t> inner(ins.size());
        for (size_t k = 0; k < ins.size(); k++)
        {
            Shape sk = ins[k].c.shape.empty() ? Shape{1} : ins[k].c.shape;
            if (sk.size() != c.shape.size())
                throw ConvertError("concatenation of constants of different ranks");
            c.shape[(size_t)axis] += sk[(size_t)axis];
            inner[k] = outer > 0 ? ins[k].c.count() / outer : 0;
        }
        for (int64_t a = 0; a < outer; a++)
            for (size_t k = 0; k < ins.size(); k++)
                for (int64_t b = 0; b < inner[k]; b++)
                    c.v.push_back(ins[k].c.v[(size_t)(a * inner[k] + b)]);
        set_output(0, const_value(c));
        return;
    }
    const int64_t axis = cur->opt.axis < 0 ? cur->opt.axis + (int64_t)r : cur->opt.axis;
    const int ka = kite_axis(axis, r);
    std::vector<Shape> shapes;
    for (const Value& v : ins)
        shapes.push_back(v.shape);
    const Shape out = nhwc::concat_shape(shapes, axis);
    std::vector<std::string> bottoms;
    for (const Value& v : ins)
        bottoms.push_back(v.is_const ? emit_memorydata(v.c, r, cur_name) : v.blob);
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
    float value = 0.f;
    if (cur->code == OP_PADV2 && has_input(2))
    {
        const Const& vc = const_input(2, "constant value");
        if (vc.count() != 1)
            throw ConvertError("constant value must be a scalar");
        value = (float)vc.v[0];
    }
    Shape out;
    const PaddingSpec ps = nhwc::pad_spec(pc.ints(), x.shape, Padding::PAD_CONSTANT, value, out);
    const std::string t = out_blob();
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
    sm.axis = kite_axis((int64_t)x.shape.size() - 1, x.shape.size());
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
        axes.push_back(kite_axis((int64_t)i, r));
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

// ops on shapes: SHAPE of an activation (static), PACK / CONCATENATION / CAST /
// GATHER / REDUCE_PROD of constants (Keras 3's Tensordot: the product of the
// gathered dimensions of a SHAPE)
void Converter::op_shape_const()
{
    if (cur->code == OP_GATHER)
    {
        const Const& p = const_input(0, "GATHER params");
        const std::vector<int64_t> idx = const_input(1, "GATHER indices").ints();
        const Shape ishape = const_input(1, "GATHER indices").shape;
        int64_t axis = cur->opt.axis;
        if (axis < 0)
            axis += (int64_t)p.shape.size();
        if (axis < 0 || axis >= (int64_t)p.shape.size())
            throw ConvertError("GATHER axis out of range");
        int64_t outer = 1, inner = 1;
        for (size_t d = 0; d < p.shape.size(); d++)
            if ((int64_t)d < axis)
                outer *= p.shape[d];
            else if ((int64_t)d > axis)
                inner *= p.shape[d];
        const int64_t n = p.shape[(size_t)axis];
        Const c;
        c.shape.assign(p.shape.begin(), p.shape.begin() + axis);
        c.shape.insert(c.shape.end(), ishape.begin(), ishape.end());
        c.shape.insert(c.shape.end(), p.shape.begin() + axis + 1, p.shape.end());
        for (int64_t a = 0; a < outer; a++)
            for (int64_t i : idx)
            {
                if (i < 0 || i >= n)
                    throw ConvertError("GATHER index " + std::to_string(i) + " out of range [0, " + std::to_string(n) + ")");
                for (int64_t b = 0; b < inner; b++)
                    c.v.push_back(p.v[(size_t)((a * n + i) * inner + b)]);
            }
        set_output(0, const_value(c));
        return;
    }
    if (cur->code == OP_REDUCE_PROD)
    {
        const Const& a = const_input(0, "REDUCE_PROD input");
        std::vector<bool> red(a.shape.size(), false);
        for (int64_t ax : const_input(1, "REDUCE_PROD axes").ints())
        {
            if (ax < 0)
                ax += (int64_t)a.shape.size();
            if (ax < 0 || ax >= (int64_t)a.shape.size())
                throw ConvertError("REDUCE_PROD axis out of range");
            red[(size_t)ax] = true;
        }
        Const c;
        for (size_t d = 0; d < a.shape.size(); d++)
            if (!red[d])
                c.shape.push_back(a.shape[d]);
            else if (cur->opt.keep_dims)
                c.shape.push_back(1);
        c.v.assign((size_t)std::max<int64_t>(1, shape_count(c.shape)), 1.0);
        for (int64_t i = 0; i < (int64_t)a.v.size(); i++)
        {
            // the output element of input element i: its coordinates without the reduced axes
            int64_t rem = i, o = 0, stride = 1;
            for (size_t d = a.shape.size(); d-- > 0;)
            {
                const int64_t coord = rem % a.shape[d];
                rem /= a.shape[d];
                if (!red[d])
                {
                    o += coord * stride;
                    stride *= a.shape[d];
                }
            }
            c.v[(size_t)o] *= a.v[(size_t)i];
        }
        set_output(0, const_value(c));
        return;
    }
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
    const Shape out = nhwc::permuted_shape(x.shape, p);
    const int order = nhwc::permute_order(p);
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

} // namespace tflite
} // namespace convert
} // namespace kite
