#include "random_modelbin.h"

#include "layer.h"
#include "net.h"
#include "rng.h"

#include <cmath>

namespace kite {
namespace tools {

static const float kActivationScale = 127.f / 4.f; // int8 blob scale: activations within +-4

static RandomModelBin::Kind uniform(float lo, float hi)
{
    RandomModelBin::Kind k;
    k.mode = RandomModelBin::Kind::UNIFORM;
    k.lo = lo;
    k.hi = hi;
    k.ref = -1;
    return k;
}

static RandomModelBin::Kind weight(double fan_in, double gain)
{
    if (fan_in < 1)
        fan_in = 1;
    float a = (float)(gain * std::sqrt(3.0 / fan_in));
    return uniform(-a, a);
}

static RandomModelBin::Kind weight_scales(int ref)
{
    RandomModelBin::Kind k;
    k.mode = RandomModelBin::Kind::WEIGHT_SCALES;
    k.lo = k.hi = 0.f;
    k.ref = ref;
    return k;
}

static RandomModelBin::Kind constant(float v)
{
    RandomModelBin::Kind k;
    k.mode = RandomModelBin::Kind::CONSTANT;
    k.lo = k.hi = v;
    k.ref = -1;
    return k;
}

static const RandomModelBin::Kind kBias = uniform(-0.1f, 0.1f);
static const RandomModelBin::Kind kGamma = uniform(0.5f, 1.5f);
static const RandomModelBin::Kind kGeneric = uniform(-0.5f, 0.5f);

static double activation_gain(int activation_type)
{
    // ReLU, LeakyReLU, Mish, HardSwish pass about half the variance
    return (activation_type == 1 || activation_type == 2 || activation_type == 5 || activation_type == 6) ? std::sqrt(2.0) : 1.0;
}

static bool starts_with(const std::string& s, const char* p)
{
    return s.compare(0, std::string(p).size(), p) == 0;
}

RandomModelBin::RandomModelBin(uint64_t _seed) : seed(_seed), first_scale(-1)
{
}

static bool is_weight_layer(const std::string& t)
{
    return starts_with(t, "Convolution") || starts_with(t, "Deconvolution") || t == "InnerProduct";
}

// one input, one output, value by value: a branch runs through these
static bool is_elementwise(const std::string& t)
{
    static const char* const types[] = {"ReLU", "PReLU", "ELU", "SELU", "GELU", "Clip", "Sigmoid", "TanH", "Swish",
                                        "HardSwish", "HardSigmoid", "Mish", "BNLL", "AbsVal", "BatchNorm", "Scale",
                                        "Bias", "Dropout", "Noop", "Power"};
    for (const char* x : types)
        if (t == x)
            return true;
    return false;
}

// the weight layer that ends the branch producing blob b (index into
// net.layers()), or -1 when b is an identity input: a blob read elsewhere
// too (the trunk of a residual block), or one that reaches anything but a
// weight layer through element-wise layers
static int branch_end(const Net& net, int b)
{
    for (int hops = 0; hops < 64 && b >= 0 && b < (int)net.blobs().size(); hops++)
    {
        const Blob& blob = net.blobs()[b];
        if (blob.producer < 0 || blob.consumers.size() != 1)
            return -1;
        const Layer* l = net.layers()[blob.producer];
        if (is_weight_layer(l->type))
            return blob.producer;
        if (!is_elementwise(l->type) || l->bottoms.size() != 1 || l->tops.size() != 1)
            return -1;
        b = l->bottoms[0];
    }
    return -1;
}

static bool is_sum(const Net& net, int i)
{
    const Layer* l = net.layers()[i];
    const ParamDict& pd = net.layer_param(i);
    if (l->bottoms.size() < 2)
        return false;
    if (l->type == "Eltwise")
        return pd.get(0, 0) == 1; // SUM
    if (l->type == "BinaryOp")
        return pd.get(0, 0) == 0 && pd.get(1, 0) == 0; // ADD of two blobs
    return false;
}

void RandomModelBin::follow_graph(const Net& net)
{
    branch_gains.clear();
    struct Sum
    {
        std::vector<int> branches;
        int identities;
    };
    std::vector<Sum> sums;
    int residual = 0;
    for (int i = 0; i < (int)net.layers().size(); i++)
    {
        if (!is_sum(net, i))
            continue;
        Sum s;
        s.identities = 0;
        for (int b : net.layers()[i]->bottoms)
        {
            const int end = branch_end(net, b);
            if (end >= 0)
                s.branches.push_back(end);
            else
                s.identities++;
        }
        if (s.branches.empty())
            continue;
        if (s.identities > 0)
            residual++;
        sums.push_back(s);
    }
    for (const Sum& s : sums)
    {
        const double n = s.identities > 0 ? (double)residual * s.branches.size() : (double)s.branches.size();
        for (int end : s.branches)
            branch_gains[net.layers()[end]] = 1.0 / std::sqrt(n);
    }
}

double RandomModelBin::branch_gain(const Layer* layer) const
{
    std::map<const Layer*, double>::const_iterator it = branch_gains.find(layer);
    return it == branch_gains.end() ? 1.0 : it->second;
}

void RandomModelBin::begin_layer(const Layer* layer, const ParamDict& pd) const
{
    layer_type = layer ? layer->type : std::string();
    layer_name = layer ? layer->name : std::string();
    plan.clear();
    loaded.clear();
    first_scale = -1;
    const std::string& t = layer_type;
    const double branch = branch_gain(layer);

    if (starts_with(t, "Convolution") || starts_with(t, "Deconvolution"))
    {
        const int num_output = pd.get(0, 0);
        const int bias_term = pd.get(5, 0);
        const int weight_data_size = pd.get(6, 0);
        const int int8_scale_term = pd.get(8, 0);
        const int activation_type = pd.get(9, 0);
        double fan_in = num_output > 0 ? (double)weight_data_size / num_output : 1.0;
        if (starts_with(t, "Deconvolution"))
        {
            const int stride_w = std::max(1, pd.get(3, 1));
            const int stride_h = std::max(1, pd.get(13, stride_w));
            fan_in /= (double)stride_w * stride_h;
        }
        plan.push_back(weight(fan_in, activation_gain(activation_type) * branch));
        if (bias_term)
            plan.push_back(kBias);
        if (int8_scale_term)
        {
            first_scale = (int)plan.size();
            plan.push_back(weight_scales(0));
        }
        return;
    }
    if (t == "InnerProduct")
    {
        const int num_output = pd.get(0, 0);
        const int bias_term = pd.get(1, 0);
        const int weight_data_size = pd.get(2, 0);
        const int int8_scale_term = pd.get(8, 0);
        const int activation_type = pd.get(9, 0);
        plan.push_back(weight(num_output > 0 ? (double)weight_data_size / num_output : 1.0, activation_gain(activation_type) * branch));
        if (bias_term)
            plan.push_back(kBias);
        if (int8_scale_term)
        {
            first_scale = (int)plan.size();
            plan.push_back(weight_scales(0));
        }
        return;
    }
    if (t == "Gemm")
    {
        const int constantA = pd.get(4, 0);
        const int constantB = pd.get(5, 0);
        const int constantC = pd.get(6, 0);
        const int K = pd.get(9, 0);
        const int broadcast_C = pd.get(10, 0);
        const int quantize_term = pd.get(18, 0);
        int a_index = -1, b_index = -1;
        if (constantA)
        {
            a_index = (int)plan.size();
            plan.push_back(weight(K, 1.0));
        }
        if (constantB)
        {
            b_index = (int)plan.size();
            plan.push_back(weight(K, 1.0));
        }
        if (constantC && broadcast_C != -1)
            plan.push_back(kBias);
        if (quantize_term)
        {
            if (a_index >= 0)
                plan.push_back(weight_scales(a_index));
            if (b_index >= 0)
                plan.push_back(weight_scales(b_index));
        }
        return;
    }
    if (t == "MultiHeadAttention")
    {
        const int embed_dim = std::max(1, pd.get(0, 0));
        const int weight_data_size = pd.get(2, 0);
        const int kdim = pd.get(3, embed_dim);
        const int vdim = pd.get(4, embed_dim);
        const int qdim = weight_data_size / embed_dim;
        plan.push_back(weight(qdim, 1.0));
        plan.push_back(kBias);
        plan.push_back(weight(kdim, 1.0));
        plan.push_back(kBias);
        plan.push_back(weight(vdim, 1.0));
        plan.push_back(kBias);
        plan.push_back(weight(embed_dim, 1.0));
        plan.push_back(kBias);
        return;
    }
    if (t == "BatchNorm")
    {
        plan.push_back(kGamma);  // slope
        plan.push_back(kBias);   // mean
        plan.push_back(kGamma);  // var, positive
        plan.push_back(kBias);   // bias
        return;
    }
    if (t == "LayerNorm" || t == "GroupNorm" || t == "InstanceNorm" || t == "RMSNorm" || t == "Normalize" || t == "Scale")
    {
        plan.push_back(kGamma);
        plan.push_back(kBias);
        return;
    }
    if (t == "PReLU")
    {
        plan.push_back(uniform(0.f, 0.25f));
        return;
    }
    if (t == "RNN" || t == "LSTM" || t == "GRU")
    {
        const int num_output = std::max(1, pd.get(0, 1));
        const float a = (float)std::sqrt(1.0 / num_output);
        for (int i = 0; i < 8; i++)
            plan.push_back(uniform(-a, a));
        return;
    }
    if (t == "Quantize")
    {
        plan.push_back(constant(kActivationScale));
        return;
    }
    if (t == "Dequantize")
    {
        plan.push_back(constant(1.f / kActivationScale));
        plan.push_back(kBias);
        return;
    }
}

RandomModelBin::Kind RandomModelBin::kind_for(int index, int w) const
{
    (void)w;
    if (index < (int)plan.size())
        return plan[index];
    // buffers after the weight scales: bottom / top blob int8 scales
    if (first_scale >= 0 && index > first_scale)
        return constant(kActivationScale);
    return kGeneric;
}

Mat RandomModelBin::load(int w, int type) const
{
    (void)type;
    if (w <= 0)
        return Mat();
    const int index = (int)loaded.size();
    Kind k = kind_for(index, w);
    Mat m(w, (size_t)4u);
    if (m.empty())
        return m;
    float* p = m;
    if (k.mode == Kind::UNIFORM)
    {
        Rng rng(seed, hash_string(layer_name), (uint64_t)index + 1);
        for (int i = 0; i < w; i++)
            p[i] = rng.uniform(k.lo, k.hi);
    }
    else if (k.mode == Kind::CONSTANT)
    {
        for (int i = 0; i < w; i++)
            p[i] = k.lo;
    }
    else
    {
        // 127 / max|w| over each of the w equal chunks of the referenced buffer
        const Mat* ref = (k.ref >= 0 && k.ref < (int)loaded.size()) ? &loaded[k.ref] : nullptr;
        size_t n = ref ? (size_t)ref->w * ref->h * ref->d * ref->c : 0;
        size_t chunk = n / (size_t)w;
        for (int i = 0; i < w; i++)
        {
            float amax = 0.f;
            if (ref && chunk > 0)
            {
                const float* r = (const float*)ref->data + chunk * i;
                for (size_t j = 0; j < chunk; j++)
                    amax = std::max(amax, std::fabs(r[j]));
            }
            p[i] = amax > 0.f ? 127.f / amax : 1.f;
        }
    }
    loaded.push_back(m);
    return m;
}

} // namespace tools
} // namespace kite
