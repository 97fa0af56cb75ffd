#include "optimize.h"

#include "emit.h"

#include "layer/batchnorm.h"
#include "layer/clip.h"
#include "layer/convolution.h"
#include "layer/deconvolution.h"
#include "layer/dropout.h"
#include "layer/hardswish.h"
#include "layer/innerproduct.h"
#include "layer/padding.h"
#include "layer/pooling.h"
#include "layer/relu.h"
#include "layer/reshape.h"
#include "layer/scale.h"

#include <cmath>
#include <cstdio>
#include <set>

namespace kite {
namespace convert {

namespace {

bool is_conv_like(const Layer& l)
{
    return l.type == "Convolution" || l.type == "ConvolutionDepthWise" || l.type == "Deconvolution"
           || l.type == "DeconvolutionDepthWise" || l.type == "InnerProduct";
}

// num_output of a conv-like layer, its weight and bias buffers
struct ConvView
{
    int num_output = 0;
    Weight* weight = nullptr;
    Weight* bias = nullptr; // null when bias_term is 0
};

bool conv_view(Layer& l, ConvView& v)
{
    if (!is_conv_like(l))
        return false;
    static_assert((int)Convolution::PARAM_NUM_OUTPUT == (int)InnerProduct::PARAM_NUM_OUTPUT
                      && (int)Convolution::PARAM_NUM_OUTPUT == (int)Deconvolution::PARAM_NUM_OUTPUT
                      && (int)Convolution::PARAM_BIAS_TERM == (int)Deconvolution::PARAM_BIAS_TERM,
                  "conv-like ids differ");
    const int bias_param = l.type == "InnerProduct" ? (int)InnerProduct::PARAM_BIAS_TERM : (int)Convolution::PARAM_BIAS_TERM;
    const int int8_param = l.type == "InnerProduct" ? (int)InnerProduct::PARAM_INT8_SCALE_TERM : (int)Convolution::PARAM_INT8_SCALE_TERM;
    if (l.type.compare(0, 13, "Deconvolution") != 0 && l.params.get_int(int8_param, 0) != 0)
        return false; // quantized: scales would change
    if (l.type.compare(0, 11, "Convolution") == 0 && l.params.get_int(Convolution::PARAM_DYNAMIC_WEIGHT, 0) != 0)
        return false; // dynamic weight
    if (l.type.compare(0, 13, "Deconvolution") == 0 && l.params.get_int(Deconvolution::PARAM_DYNAMIC_WEIGHT, 0) != 0)
        return false;
    v.num_output = l.params.get_int(Convolution::PARAM_NUM_OUTPUT, 0);
    bool bias = l.params.get_int(bias_param, 0) != 0;
    if (v.num_output <= 0 || l.weights.size() < (bias ? 2u : 1u))
        return false;
    v.weight = &l.weights[0];
    if (v.weight->storage == Weight::INT8 || v.weight->data.size() % v.num_output != 0)
        return false;
    v.bias = bias ? &l.weights[1] : nullptr;
    if (v.bias && (int)v.bias->data.size() != v.num_output)
        return false;
    return true;
}

// the only reader of `blob` (layer index), or -1
int sole_consumer(const Graph& g, const std::string& blob)
{
    int found = -1;
    for (size_t i = 0; i < g.layers.size(); i++)
        for (const std::string& b : g.layers[i].bottoms)
            if (b == blob)
            {
                if (found >= 0)
                    return -1;
                found = (int)i;
            }
    return found;
}

// y = a[c] * x + b[c] per output channel folded into the conv-like layer
void fold_affine(Layer& conv, ConvView& v, const std::vector<float>& a, const std::vector<float>& b)
{
    size_t per = v.weight->data.size() / v.num_output;
    for (int o = 0; o < v.num_output; o++)
        for (size_t k = 0; k < per; k++)
            v.weight->data[o * per + k] *= a[o];
    if (!v.bias)
    {
        const int bias_param = conv.type == "InnerProduct" ? (int)InnerProduct::PARAM_BIAS_TERM : (int)Convolution::PARAM_BIAS_TERM;
        conv.params.set(bias_param, 1);
        conv.weights.insert(conv.weights.begin() + 1, Weight(std::vector<float>(v.num_output, 0.f), false));
        v.weight = &conv.weights[0];
        v.bias = &conv.weights[1];
    }
    for (int o = 0; o < v.num_output; o++)
        v.bias->data[o] = v.bias->data[o] * a[o] + b[o];
}

// per-channel affine of a BatchNorm / Scale / scalar BinaryOp layer; false
// when it cannot be expressed as a[c] * x + b[c] with c = num_output
bool layer_affine(const Layer& l, int channels, std::vector<float>& a, std::vector<float>& b)
{
    a.assign(channels, 1.f);
    b.assign(channels, 0.f);
    if (l.type == "BatchNorm")
    {
        if (l.params.get_int(BatchNorm::PARAM_CHANNELS, 0) != channels || l.weights.size() != 4)
            return false;
        float eps = l.params.get_float(BatchNorm::PARAM_EPS, 0.f);
        for (const Weight& w : l.weights)
            if ((int)w.data.size() != channels)
                return false;
        for (int c = 0; c < channels; c++)
        {
            float slope = l.weights[0].data[c], mean = l.weights[1].data[c], var = l.weights[2].data[c], bias = l.weights[3].data[c];
            a[c] = slope / std::sqrt(var + eps);
            b[c] = bias - mean * a[c];
        }
        return true;
    }
    if (l.type == "Scale")
    {
        int size = l.params.get_int(Scale::PARAM_SCALE_DATA_SIZE, 0);
        bool bias = l.params.get_int(Scale::PARAM_BIAS_TERM, 0) != 0;
        if (size != channels || l.bottoms.size() != 1 || l.weights.size() != (bias ? 2u : 1u))
            return false;
        for (const Weight& w : l.weights)
            if ((int)w.data.size() != channels)
                return false;
        for (int c = 0; c < channels; c++)
        {
            a[c] = l.weights[0].data[c];
            b[c] = bias ? l.weights[1].data[c] : 0.f;
        }
        return true;
    }
    if (l.type == "BinaryOp" && l.bottoms.size() == 1 && l.params.get_int(BinaryOp::PARAM_WITH_SCALAR, 0) == 1)
    {
        int op = l.params.get_int(BinaryOp::PARAM_OP_TYPE, 0);
        float s = l.params.get_float(BinaryOp::PARAM_B, 0.f);
        if (op == BinaryOp::Operation_ADD)
            b.assign(channels, s);
        else if (op == BinaryOp::Operation_SUB)
            b.assign(channels, -s);
        else if (op == BinaryOp::Operation_MUL)
            a.assign(channels, s);
        else if (op == BinaryOp::Operation_DIV && s != 0.f)
            a.assign(channels, 1.f / s);
        else
            return false;
        return true;
    }
    return false;
}

// the conv's activation for a following activation layer: type + params, or false
bool activation_of(const Layer& l, int& type, std::vector<float>& params)
{
    params.clear();
    if (l.bottoms.size() != 1 || l.tops.size() != 1)
        return false;
    if (l.type == "ReLU")
    {
        float slope = l.params.get_float(ReLU::PARAM_SLOPE, 0.f);
        type = slope == 0.f ? ACTIVATION_RELU : ACTIVATION_LEAKYRELU;
        if (type == ACTIVATION_LEAKYRELU)
            params = {slope};
        return true;
    }
    if (l.type == "Clip")
    {
        type = ACTIVATION_CLIP;
        params = {l.params.get_float(Clip::PARAM_MIN, -3.402823466e+38f), l.params.get_float(Clip::PARAM_MAX, 3.402823466e+38f)};
        return true;
    }
    if (l.type == "Sigmoid")
    {
        type = ACTIVATION_SIGMOID;
        return true;
    }
    if (l.type == "Mish")
    {
        type = ACTIVATION_MISH;
        return true;
    }
    if (l.type == "HardSwish")
    {
        type = ACTIVATION_HARDSWISH;
        params = {l.params.get_float(HardSwish::PARAM_ALPHA, 0.2f), l.params.get_float(HardSwish::PARAM_BETA, 0.5f)};
        return true;
    }
    return false;
}

// conv-like layer i takes over the top of layer j (its sole consumer); j goes
void absorb(Graph& g, size_t i, size_t j)
{
    g.layers[i].tops[0] = g.layers[j].tops[0];
    g.layers.erase(g.layers.begin() + j);
}

// the other way round: layer j (the sole consumer of layer i) reads layer i's
// input instead, and i goes (unlike Graph::bypass, no blob is renamed)
void fold_into_consumer(Graph& g, size_t i, size_t j)
{
    g.layers[j].bottoms[0] = g.layers[i].bottoms[0];
    g.layers.erase(g.layers.begin() + i);
}

// one pass of "layer after a conv-like layer" fusion; returns how many
int fuse_after_conv(Graph& g, const std::set<std::string>& keep, OptimizeStats& st)
{
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        Layer& conv = g.layers[i];
        ConvView v;
        if (conv.tops.size() != 1 || keep.count(conv.tops[0]) || !conv_view(conv, v))
            continue;
        int j = sole_consumer(g, conv.tops[0]);
        if (j < 0 || g.layers[j].bottoms.size() != 1)
            continue;
        const Layer& next = g.layers[j];
        int act = conv.params.get_int(Convolution::PARAM_ACTIVATION_TYPE, ACTIVATION_NONE);
        std::vector<float> a, b;
        if (act == ACTIVATION_NONE && layer_affine(next, v.num_output, a, b))
        {
            if (next.type == "BatchNorm")
                st.batchnorm++;
            else if (next.type == "Scale")
                st.scale++;
            else
                st.binaryop++;
            fold_affine(conv, v, a, b);
            absorb(g, i, j);
            n++;
            i--; // look again: BatchNorm, Scale, ReLU may follow
            continue;
        }
        int type;
        std::vector<float> params;
        if (act == ACTIVATION_NONE && activation_of(next, type, params))
        {
            set_activation(conv, type, params);
            st.activation++;
            absorb(g, i, j);
            n++;
            i--;
        }
    }
    return n;
}

// a positive scalar multiply (BinaryOp MUL by s > 0, DIV by s > 0) after a conv-like
// layer whose fused activation is ReLU, LeakyReLU or Clip: s * act(y) = act'(s * y)
// with Clip's bounds scaled (MobileNetV3's hard sigmoid: relu6(x + 3) / 6)
int fuse_scale_after_activation(Graph& g, const std::set<std::string>& keep, OptimizeStats& st)
{
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        Layer& conv = g.layers[i];
        ConvView v;
        if (conv.tops.size() != 1 || keep.count(conv.tops[0]) || !conv_view(conv, v))
            continue;
        const int act = conv.params.get_int(Convolution::PARAM_ACTIVATION_TYPE, ACTIVATION_NONE);
        if (act != ACTIVATION_RELU && act != ACTIVATION_LEAKYRELU && act != ACTIVATION_CLIP)
            continue;
        int j = sole_consumer(g, conv.tops[0]);
        if (j < 0)
            continue;
        const Layer& next = g.layers[j];
        if (next.type != "BinaryOp" || next.bottoms.size() != 1 || next.tops.size() != 1
            || next.params.get_int(BinaryOp::PARAM_WITH_SCALAR, 0) != 1)
            continue;
        const int op = next.params.get_int(BinaryOp::PARAM_OP_TYPE, 0);
        const float b = next.params.get_float(BinaryOp::PARAM_B, 0.f);
        float s = 0.f;
        if (op == BinaryOp::Operation_MUL)
            s = b;
        else if (op == BinaryOp::Operation_DIV && b != 0.f)
            s = 1.f / b;
        if (!(s > 0.f) || !std::isfinite(s))
            continue;
        std::vector<float> ap = conv.params.get_floats(Convolution::PARAM_ACTIVATION_PARAMS);
        if (act == ACTIVATION_CLIP)
        {
            if (ap.size() != 2)
                continue;
            ap[0] *= s;
            ap[1] *= s;
        }
        fold_affine(conv, v, std::vector<float>(v.num_output, s), std::vector<float>(v.num_output, 0.f));
        if (act == ACTIVATION_CLIP)
            conv.params.set_floats(Convolution::PARAM_ACTIVATION_PARAMS, ap);
        absorb(g, i, (size_t)j);
        st.binaryop++;
        n++;
    }
    return n;
}

// a zero constant Padding of width and height only before a Convolution or
// ConvolutionDepthWise (fp32, explicit non-negative pads, zero pad value) becomes the
// convolution's own pads (TensorFlow's ZeroPadding2D / Pad before a VALID stride-2 conv)
int fuse_padding_into_conv(Graph& g, const std::set<std::string>& keep, OptimizeStats& st)
{
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        const Layer& pad = g.layers[i];
        if (pad.type != "Padding" || pad.bottoms.size() != 1 || pad.tops.size() != 1 || !pad.weights.empty()
            || keep.count(pad.tops[0]))
            continue;
        const ParamSet& pp = pad.params;
        if (pp.get_int(Padding::PARAM_TYPE, 0) != 0 || pp.get_float(Padding::PARAM_VALUE, 0.f) != 0.f
            || pp.get_int(Padding::PARAM_PER_CHANNEL_PAD_DATA_SIZE, 0) != 0 || pp.get_int(Padding::PARAM_FRONT, 0) != 0
            || pp.get_int(Padding::PARAM_BEHIND, 0) != 0)
            continue;
        const int top = pp.get_int(Padding::PARAM_TOP, 0), bottom = pp.get_int(Padding::PARAM_BOTTOM, 0);
        const int left = pp.get_int(Padding::PARAM_LEFT, 0), right = pp.get_int(Padding::PARAM_RIGHT, 0);
        if (top < 0 || bottom < 0 || left < 0 || right < 0)
            continue;
        int j = sole_consumer(g, pad.tops[0]);
        if (j < 0)
            continue;
        Layer& conv = g.layers[j];
        ConvView v;
        if ((conv.type != "Convolution" && conv.type != "ConvolutionDepthWise") || conv.bottoms.size() != 1
            || !conv_view(conv, v))
            continue;
        ParamSet& cp = conv.params;
        const int cl = cp.get_int(Convolution::PARAM_PAD_LEFT, 0);
        const int cr = cp.get_int(Convolution::PARAM_PAD_RIGHT, cl);
        const int ct = cp.get_int(Convolution::PARAM_PAD_TOP, cl);
        const int cb = cp.get_int(Convolution::PARAM_PAD_BOTTOM, ct);
        if (cl < 0 || cr < 0 || ct < 0 || cb < 0) // -233 / -234: TensorFlow SAME computed at run time
            continue;
        if (cp.get_float(Convolution::PARAM_PAD_VALUE, 0.f) != 0.f)
            continue;
        cp.set(Convolution::PARAM_PAD_LEFT, cl + left);
        cp.set(Convolution::PARAM_PAD_RIGHT, cr + right);
        cp.set(Convolution::PARAM_PAD_TOP, ct + top);
        cp.set(Convolution::PARAM_PAD_BOTTOM, cb + bottom);
        fold_into_consumer(g, i, (size_t)j);
        st.padding++;
        n++;
        i--;
    }
    return n;
}

// scalar BinaryOp add/sub/mul/div layers right before a Convolution (the
// input's rescaling in Keras' MobileNetV3: x * (1/127.5) - 1) fold into it:
// conv(a * x + b) has weights w * a, bias + b * sum(w), and a pad value of -b / a
// so that its padded border still reads as zero after the affine
int fuse_affine_into_next_conv(Graph& g, const std::set<std::string>& keep, OptimizeStats& st)
{
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        ConvView v;
        if (g.layers[i].type != "Convolution" || g.layers[i].bottoms.size() != 1 || !conv_view(g.layers[i], v)
            || g.layers[i].params.get_float(Convolution::PARAM_PAD_VALUE, 0.f) != 0.f)
            continue;
        // walk up the chain of scalar BinaryOps read only by the next one
        double A = 1.0, B = 0.0;
        std::string in = g.layers[i].bottoms[0];
        std::vector<int> chain;
        for (;;)
        {
            const int p = g.producer(in);
            if (p < 0 || keep.count(in) || sole_consumer(g, in) != (chain.empty() ? (int)i : chain.back()))
                break;
            const Layer& l = g.layers[p];
            if (l.type != "BinaryOp" || l.bottoms.size() != 1 || l.tops.size() != 1
                || l.params.get_int(BinaryOp::PARAM_WITH_SCALAR, 0) != 1)
                break;
            const int op = l.params.get_int(BinaryOp::PARAM_OP_TYPE, 0);
            const double sv = l.params.get_float(BinaryOp::PARAM_B, 0.f);
            if (op == BinaryOp::Operation_ADD)
                B += A * sv;
            else if (op == BinaryOp::Operation_SUB)
                B -= A * sv;
            else if (op == BinaryOp::Operation_MUL)
                A *= sv;
            else if (op == BinaryOp::Operation_DIV && sv != 0.0)
                A /= sv;
            else
                break;
            chain.push_back(p);
            in = l.bottoms[0];
        }
        if (chain.empty() || A == 0.0 || !std::isfinite(A) || !std::isfinite(B) || !std::isfinite(-B / A))
            continue;
        Layer& conv = g.layers[i];
        const size_t per = v.weight->data.size() / v.num_output;
        std::vector<float> add(v.num_output, 0.f);
        for (int o = 0; o < v.num_output; o++)
        {
            double sum = 0.0;
            for (size_t k = 0; k < per; k++)
            {
                float& w = v.weight->data[o * per + k];
                sum += w;
                w = (float)(w * A);
            }
            add[o] = (float)(B * sum);
        }
        if (!v.bias)
        {
            conv.params.set(Convolution::PARAM_BIAS_TERM, 1);
            conv.weights.insert(conv.weights.begin() + 1, Weight(std::vector<float>(v.num_output, 0.f), false));
            v.weight = &conv.weights[0];
            v.bias = &conv.weights[1];
        }
        for (int o = 0; o < v.num_output; o++)
            v.bias->data[o] += add[o];
        if (B != 0.0)
            conv.params.set(Convolution::PARAM_PAD_VALUE, (float)(-B / A));
        conv.bottoms[0] = in;
        std::vector<bool> dead(g.layers.size(), false);
        for (int p : chain)
            dead[p] = true;
        g.erase_layers(dead);
        st.binaryop += (int)chain.size();
        n++;
        i = (size_t)-1; // indices moved: again from the start
    }
    return n;
}

bool one_dim_producer(const Layer& l); // below

// a 1x1 Convolution (stride 1, no pads, fp32) that can run as an InnerProduct
bool plain_conv1x1(const Layer& l)
{
    ConvView v;
    if (l.type != "Convolution" || l.bottoms.size() != 1 || l.tops.size() != 1 || !conv_view(const_cast<Layer&>(l), v))
        return false;
    static const std::set<int> known = {Convolution::PARAM_NUM_OUTPUT, Convolution::PARAM_KERNEL_W, Convolution::PARAM_DILATION_W,
                                        Convolution::PARAM_STRIDE_W, Convolution::PARAM_PAD_LEFT, Convolution::PARAM_BIAS_TERM,
                                        Convolution::PARAM_WEIGHT_DATA_SIZE, Convolution::PARAM_INT8_SCALE_TERM,
                                        Convolution::PARAM_ACTIVATION_TYPE, Convolution::PARAM_ACTIVATION_PARAMS,
                                        Convolution::PARAM_KERNEL_H, Convolution::PARAM_DILATION_H, Convolution::PARAM_STRIDE_H,
                                        Convolution::PARAM_PAD_TOP, Convolution::PARAM_PAD_RIGHT, Convolution::PARAM_PAD_BOTTOM,
                                        Convolution::PARAM_PAD_VALUE};
    for (const auto& kv : l.params.all())
        if (!known.count(kv.first))
            return false;
    const ParamSet& p = l.params;
    const int k = p.get_int(Convolution::PARAM_KERNEL_W, 0), s = p.get_int(Convolution::PARAM_STRIDE_W, 1);
    const int pl = p.get_int(Convolution::PARAM_PAD_LEFT, 0);
    return k == 1 && p.get_int(Convolution::PARAM_KERNEL_H, k) == 1 && s == 1 && p.get_int(Convolution::PARAM_STRIDE_H, s) == 1
           && pl == 0 && p.get_int(Convolution::PARAM_PAD_RIGHT, pl) == 0 && p.get_int(Convolution::PARAM_PAD_TOP, pl) == 0
           && p.get_int(Convolution::PARAM_PAD_BOTTOM, p.get_int(Convolution::PARAM_PAD_TOP, pl)) == 0;
}

// a classifier head written as 1x1 convolutions on a 1x1 map (Keras' MobileNet /
// MobileNetV3: global Pooling -> Reshape to [1, 1, C] -> 1x1 Convolution(s) -> Reshape
// to [N]) runs as InnerProduct layers on the pooled vector: the same weights, which
// the CPU keeps as fp16 where it converts them in hardware (half the bytes of a
// weight-bound layer)
int fuse_conv1x1_head(Graph& g, const std::set<std::string>& keep, OptimizeStats& st)
{
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        const Layer& r1 = g.layers[i];
        if (r1.type != "Reshape" || r1.bottoms.size() != 1 || r1.tops.size() != 1 || keep.count(r1.tops[0]))
            continue;
        const ParamSet& rp = r1.params;
        if (rp.all().size() != 3 || rp.get_int(Reshape::PARAM_W, 0) != 1 || rp.get_int(Reshape::PARAM_H, 0) != 1
            || rp.get_int(Reshape::PARAM_C, 0) <= 0)
            continue;
        const int p = g.producer(r1.bottoms[0]);
        if (p < 0 || !one_dim_producer(g.layers[p]))
            continue;
        // the chain of 1x1 convolutions, each the only reader of the one before
        std::vector<int> chain;
        std::string blob = r1.tops[0];
        int j = sole_consumer(g, blob);
        while (j >= 0 && plain_conv1x1(g.layers[j]) && !keep.count(g.layers[j].tops[0]))
        {
            chain.push_back(j);
            blob = g.layers[j].tops[0];
            j = sole_consumer(g, blob);
        }
        // it must end in a Reshape to one dimension
        if (chain.empty() || j < 0)
            continue;
        const Layer& r2 = g.layers[j];
        if (r2.type != "Reshape" || r2.bottoms.size() != 1 || r2.params.all().size() != 1
            || r2.params.get_int(Reshape::PARAM_W, 0) == 0)
            continue;
        for (int c : chain)
        {
            Layer& conv = g.layers[c];
            ParamSet ip;
            ip.set(InnerProduct::PARAM_NUM_OUTPUT, conv.params.get_int(Convolution::PARAM_NUM_OUTPUT, 0));
            ip.set(InnerProduct::PARAM_BIAS_TERM, conv.params.get_int(Convolution::PARAM_BIAS_TERM, 0));
            ip.set(InnerProduct::PARAM_WEIGHT_DATA_SIZE, conv.params.get_int(Convolution::PARAM_WEIGHT_DATA_SIZE, 0));
            const int act = conv.params.get_int(Convolution::PARAM_ACTIVATION_TYPE, ACTIVATION_NONE);
            if (act != ACTIVATION_NONE)
            {
                ip.set(InnerProduct::PARAM_ACTIVATION_TYPE, act);
                std::vector<float> ap = conv.params.get_floats(Convolution::PARAM_ACTIVATION_PARAMS);
                if (!ap.empty())
                    ip.set_floats(InnerProduct::PARAM_ACTIVATION_PARAMS, ap);
            }
            conv.type = "InnerProduct";
            conv.params = ip;
        }
        fold_into_consumer(g, i, (size_t)chain[0]);
        st.head++;
        n++;
        i--;
    }
    return n;
}

// Scale (per channel, one input) after a BatchNorm folds into the BatchNorm
int fuse_scale_into_batchnorm(Graph& g, const std::set<std::string>& keep, OptimizeStats& st)
{
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        Layer& bn = g.layers[i];
        if (bn.type != "BatchNorm" || bn.tops.size() != 1 || bn.weights.size() != 4 || keep.count(bn.tops[0]))
            continue;
        int channels = bn.params.get_int(BatchNorm::PARAM_CHANNELS, 0);
        bool sizes_ok = channels > 0;
        for (const Weight& w : bn.weights)
            sizes_ok = sizes_ok && (int)w.data.size() == channels;
        int j = sole_consumer(g, bn.tops[0]);
        if (!sizes_ok || j < 0)
            continue;
        std::vector<float> a, b;
        if (g.layers[j].type != "Scale" || !layer_affine(g.layers[j], channels, a, b))
            continue;
        for (int c = 0; c < channels; c++)
        {
            bn.weights[0].data[c] *= a[c];
            bn.weights[3].data[c] = bn.weights[3].data[c] * a[c] + b[c];
        }
        absorb(g, i, (size_t)j);
        st.scale++;
        n++;
    }
    return n;
}

bool one_dim_producer(const Layer& l)
{
    return l.type == "InnerProduct" || l.type == "Flatten" || (l.type == "Pooling" && l.params.get_int(Pooling::PARAM_GLOBAL_POOLING, 0) == 1);
}

} // namespace

int optimize_graph(Graph& g, const std::vector<std::string>& outputs, OptimizeStats& st)
{
    std::set<std::string> keep(outputs.begin(), outputs.end());
    if (keep.empty())
    {
        std::vector<std::string> u = g.unconsumed_blobs();
        keep.insert(u.begin(), u.end());
    }
    // pass-through layers: Split (re-inserted where needed when written),
    // Dropout with scale 1, Noop, Flatten of a blob that is already 1-D
    for (size_t i = 0; i < g.layers.size();)
    {
        Layer& l = g.layers[i];
        bool pass = false;
        if (l.type == "Split" && l.bottoms.size() == 1)
        {
            // every reader of a top reads the bottom instead
            std::string in = l.bottoms[0];
            bool output = false;
            for (const std::string& t : l.tops)
                output = output || keep.count(t);
            if (!output)
            {
                for (const std::string& t : l.tops)
                    g.rename_bottoms(t, in);
                g.layers.erase(g.layers.begin() + i);
                st.split++;
                continue;
            }
        }
        if ((l.type == "Dropout" && l.params.get_float(Dropout::PARAM_SCALE, 1.f) == 1.f) || l.type == "Noop")
            pass = true;
        if (l.type == "Flatten" && l.bottoms.size() == 1)
        {
            int p = g.producer(l.bottoms[0]);
            pass = p >= 0 && one_dim_producer(g.layers[p]);
        }
        if (pass && l.bottoms.size() == 1 && l.tops.size() == 1)
        {
            size_t before = g.layers.size();
            std::string type = l.type;
            g.bypass(i);
            if (g.layers.size() < before)
            {
                if (type == "Flatten")
                    st.flatten++;
                else
                    st.dropout++;
                continue;
            }
        }
        i++;
    }
    fuse_scale_into_batchnorm(g, keep, st);
    fuse_padding_into_conv(g, keep, st);
    fuse_affine_into_next_conv(g, keep, st);
    while (fuse_after_conv(g, keep, st) + fuse_scale_after_activation(g, keep, st) > 0)
    {
    }
    fuse_conv1x1_head(g, keep, st);
    return 0;
}

int optimize_converted(Graph& g, const FinalizeOptions& fo, OptimizeStats& stats)
{
    if (finalize(g, fo) != 0)
        return -1;
    std::vector<std::string> outputs = fo.outputs;
    if (outputs.empty())
        outputs = g.unconsumed_blobs();
    return optimize_graph(g, outputs, stats);
}

int batchnorm_after_conv(const Graph& g)
{
    int n = 0;
    for (const Layer& l : g.layers)
    {
        if (l.type != "BatchNorm" || l.bottoms.size() != 1)
            continue;
        int p = g.producer(l.bottoms[0]);
        if (p >= 0 && is_conv_like(g.layers[p]))
            n++;
    }
    return n;
}

} // namespace convert
} // namespace kite
