// Caffe -> kite: every layer becomes one or a few ncnn-format layers with
// the parameters and weight layout kite's layers read (docs/model-format.md).

#include "caffe_parser.h"

#include "emit.h"
#include "kite_caffe.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <climits>
#include <new>
#include <cmath>
#include <map>
#include <set>

namespace kite {
namespace convert {
namespace caffe {

using convert::Graph;
using convert::Layer;
using convert::Weight;
using pb::BlobProto;
using pb::LayerParameter;
using pb::NetParameter;

namespace {

// collects the text parser's complaints; the first one is reported
class TextErrors : public google::protobuf::io::ErrorCollector
{
public:
    std::string first;
    void AddError(int line, int column, const std::string& message) override
    {
        if (first.empty())
            first = "line " + std::to_string(line + 1) + " column " + std::to_string(column + 1) + ": " + message;
    }
    void AddWarning(int, int, const std::string&) override {}
};

const char* v1_type_name(int t)
{
    using V1 = pb::V1LayerParameter;
    switch (t)
    {
    case V1::ABSVAL: return "AbsVal";
    case V1::ACCURACY: return "Accuracy";
    case V1::ARGMAX: return "ArgMax";
    case V1::BNLL: return "BNLL";
    case V1::CONCAT: return "Concat";
    case V1::CONVOLUTION: return "Convolution";
    case V1::DATA: return "Data";
    case V1::DECONVOLUTION: return "Deconvolution";
    case V1::DROPOUT: return "Dropout";
    case V1::ELTWISE: return "Eltwise";
    case V1::EXP: return "Exp";
    case V1::FLATTEN: return "Flatten";
    case V1::INNER_PRODUCT: return "InnerProduct";
    case V1::LRN: return "LRN";
    case V1::MEMORY_DATA: return "MemoryData";
    case V1::MVN: return "MVN";
    case V1::POOLING: return "Pooling";
    case V1::POWER: return "Power";
    case V1::RELU: return "ReLU";
    case V1::SIGMOID: return "Sigmoid";
    case V1::SILENCE: return "Silence";
    case V1::SOFTMAX: return "Softmax";
    case V1::SOFTMAX_LOSS: return "SoftmaxWithLoss";
    case V1::SPLIT: return "Split";
    case V1::SLICE: return "Slice";
    case V1::TANH: return "TanH";
    case V1::THRESHOLD: return "Threshold";
    default: return nullptr;
    }
}

// V1 `layers {}` -> the V2 form (the parameter messages are the same types)
void upgrade_v1(const pb::V1LayerParameter& v1, LayerParameter& l)
{
    l.set_name(v1.name());
    const char* t = v1_type_name(v1.type());
    l.set_type(t ? t : "V1_" + pb::V1LayerParameter::LayerType_Name(v1.type()) + std::to_string((int)v1.type()));
    for (const std::string& b : v1.bottom())
        l.add_bottom(b);
    for (const std::string& b : v1.top())
        l.add_top(b);
    *l.mutable_blobs() = v1.blobs();
    *l.mutable_include() = v1.include();
    *l.mutable_exclude() = v1.exclude();
    if (v1.has_argmax_param()) *l.mutable_argmax_param() = v1.argmax_param();
    if (v1.has_concat_param()) *l.mutable_concat_param() = v1.concat_param();
    if (v1.has_convolution_param()) *l.mutable_convolution_param() = v1.convolution_param();
    if (v1.has_dropout_param()) *l.mutable_dropout_param() = v1.dropout_param();
    if (v1.has_eltwise_param()) *l.mutable_eltwise_param() = v1.eltwise_param();
    if (v1.has_exp_param()) *l.mutable_exp_param() = v1.exp_param();
    if (v1.has_inner_product_param()) *l.mutable_inner_product_param() = v1.inner_product_param();
    if (v1.has_lrn_param()) *l.mutable_lrn_param() = v1.lrn_param();
    if (v1.has_mvn_param()) *l.mutable_mvn_param() = v1.mvn_param();
    if (v1.has_pooling_param()) *l.mutable_pooling_param() = v1.pooling_param();
    if (v1.has_power_param()) *l.mutable_power_param() = v1.power_param();
    if (v1.has_relu_param()) *l.mutable_relu_param() = v1.relu_param();
    if (v1.has_softmax_param()) *l.mutable_softmax_param() = v1.softmax_param();
    if (v1.has_slice_param()) *l.mutable_slice_param() = v1.slice_param();
    if (v1.has_threshold_param()) *l.mutable_threshold_param() = v1.threshold_param();
}

void all_layers(const NetParameter& net, std::vector<LayerParameter>& out)
{
    for (const LayerParameter& l : net.layer())
        out.push_back(l);
    for (const pb::V1LayerParameter& v1 : net.layers())
    {
        LayerParameter l;
        upgrade_v1(v1, l);
        out.push_back(l);
    }
}

bool in_test_phase(const LayerParameter& l)
{
    if (l.has_phase() && l.phase() == pb::TRAIN)
        return false;
    for (const pb::NetStateRule& r : l.include())
        if (r.has_phase() && r.phase() == pb::TEST)
            return true;
    if (l.include_size() > 0)
        return false;
    for (const pb::NetStateRule& r : l.exclude())
        if (r.has_phase() && r.phase() == pb::TEST)
            return false;
    return true;
}

// a layer failed: ConvertError, caught by convert_caffe
[[noreturn]] void fail(const LayerParameter& l, const std::string& what)
{
    convert::fail("layer", l.name(), l.type(), what);
}

class Converter
{
public:
    Converter(Graph& g, convert::UnsupportedOps& u, bool allow_missing)
        : g(g), unsupported(u), allow_missing(allow_missing)
    {
    }

    void set_weights(const std::map<std::string, const LayerParameter*>& w) { weights = w; }
    void layer(const LayerParameter& l);
    void input(const std::string& blob, const std::vector<long long>& dims, const std::string& where);

private:
    Graph& g;
    convert::UnsupportedOps& unsupported;
    bool allow_missing;
    std::map<std::string, const LayerParameter*> weights;

    // blob i of the layer as fp32, checked to hold `expect` values (-1: any, >= 1)
    std::vector<float> blob(const LayerParameter& l, int i, long long expect);
    int blob_count(const LayerParameter& l) const;
    std::vector<long long> blob_shape(const LayerParameter& l, int i) const;
    Layer& add(const LayerParameter& l, const std::string& type);
    template<class Spec>
    Layer& emit(const LayerParameter& l, const Spec& s)
    {
        Layer& k = add(l, s.type);
        s.write(k.params);
        return k;
    }

    void convolution(const LayerParameter& l, bool deconv);
    void pooling(const LayerParameter& l);
    void inner_product(const LayerParameter& l);
    void batch_norm(const LayerParameter& l);
    void scale(const LayerParameter& l);
    void reshape(const LayerParameter& l);
    void permute(const LayerParameter& l);
    void prior_box(const LayerParameter& l);
    void detection_output(const LayerParameter& l);
    void crop(const LayerParameter& l);
    void slice(const LayerParameter& l);
};

const LayerParameter* find_weights(const std::map<std::string, const LayerParameter*>& w, const std::string& name)
{
    auto it = w.find(name);
    return it == w.end() ? nullptr : it->second;
}

int Converter::blob_count(const LayerParameter& l) const
{
    const LayerParameter* w = find_weights(weights, l.name());
    if (w && w->blobs_size() > 0)
        return w->blobs_size();
    return l.blobs_size();
}

static const BlobProto* get_blob(const std::map<std::string, const LayerParameter*>& weights, const LayerParameter& l, int i)
{
    const LayerParameter* w = find_weights(weights, l.name());
    if (w && i < w->blobs_size())
        return &w->blobs(i);
    if (i < l.blobs_size())
        return &l.blobs(i);
    return nullptr;
}

std::vector<long long> Converter::blob_shape(const LayerParameter& l, int i) const
{
    const BlobProto* b = get_blob(weights, l, i);
    std::vector<long long> s;
    if (!b)
        return s;
    if (b->has_shape())
    {
        for (long long d : b->shape().dim())
            s.push_back(d);
        return s;
    }
    // legacy 4-D fields
    s = {b->num(), b->channels(), b->height(), b->width()};
    return s;
}

std::vector<float> Converter::blob(const LayerParameter& l, int i, long long expect)
{
    const BlobProto* b = get_blob(weights, l, i);
    if (!b)
    {
        if (allow_missing && expect > 0 && expect <= (1 << 20)) // zero fill for fuzzing and prototxt-only checks
            return std::vector<float>((size_t)expect, 0.f);
        fail(l, "weight blob " + std::to_string(i) + " is missing (is the .caffemodel the one of this prototxt?)");
    }
    std::vector<float> v;
    if (b->data_size() > 0)
        v.assign(b->data().begin(), b->data().end());
    else
        for (double d : b->double_data())
            v.push_back((float)d);
    if (expect >= 0 && (long long)v.size() != expect)
        fail(l, "weight blob " + std::to_string(i) + " has " + std::to_string(v.size()) + " values, expected " + std::to_string(expect));
    if (v.empty())
        fail(l, "weight blob " + std::to_string(i) + " is empty");
    for (float f : v)
        if (!std::isfinite(f))
            fail(l, "weight blob " + std::to_string(i) + " holds a NaN or infinity");
    return v;
}

Layer& Converter::add(const LayerParameter& l, const std::string& type)
{
    std::vector<std::string> bottoms(l.bottom().begin(), l.bottom().end());
    std::vector<std::string> tops(l.top().begin(), l.top().end());
    return g.add(type, l.name(), bottoms, tops);
}

void Converter::input(const std::string& blob, const std::vector<long long>& dims, const std::string& where)
{
    // N C H W -> w h c (batch dropped); fewer dims: N C -> w; N H W -> w h
    int w = 0, h = 0, c = 0;
    for (long long d : dims)
        if (d < 0 || d > INT_MAX)
            throw convert::ConvertError(where + ": input '" + blob + "' has a bad dimension " + std::to_string(d));
    if (dims.size() == 4)
    {
        c = (int)dims[1];
        h = (int)dims[2];
        w = (int)dims[3];
    }
    else if (dims.size() == 3)
    {
        h = (int)dims[1];
        w = (int)dims[2];
    }
    else if (dims.size() == 2)
        w = (int)dims[1];
    else if (dims.size() == 1)
        w = (int)dims[0];
    else if (!dims.empty())
        throw convert::ConvertError(where + ": input '" + blob + "' has " + std::to_string(dims.size()) + " dims (1..4 supported)");
    g.add_input(blob, w, h, c);
}

// --- layer kinds ---------------------------------------------------------

static int pick(int v_hw, int v_all, bool has_hw, int def)
{
    return has_hw ? v_hw : (v_all >= 0 ? v_all : def);
}

void Converter::convolution(const LayerParameter& l, bool deconv)
{
    const pb::ConvolutionParameter& p = l.convolution_param();
    if (p.axis() != 1)
        fail(l, "axis " + std::to_string(p.axis()) + " (only 1)");
    if (p.kernel_size_size() > 2 || p.stride_size() > 2 || p.pad_size() > 2 || p.dilation_size() > 2)
        fail(l, "only 2-D convolution is supported");
    int k_all_h = p.kernel_size_size() > 0 ? (int)p.kernel_size(0) : -1;
    int k_all_w = p.kernel_size_size() > 1 ? (int)p.kernel_size(1) : k_all_h;
    int s_all_h = p.stride_size() > 0 ? (int)p.stride(0) : -1;
    int s_all_w = p.stride_size() > 1 ? (int)p.stride(1) : s_all_h;
    int p_all_h = p.pad_size() > 0 ? (int)p.pad(0) : -1;
    int p_all_w = p.pad_size() > 1 ? (int)p.pad(1) : p_all_h;
    int d_h = p.dilation_size() > 0 ? (int)p.dilation(0) : 1;
    int d_w = p.dilation_size() > 1 ? (int)p.dilation(1) : d_h;
    int kh = pick((int)p.kernel_h(), k_all_h, p.has_kernel_h(), -1);
    int kw = pick((int)p.kernel_w(), k_all_w, p.has_kernel_w(), -1);
    int sh = pick((int)p.stride_h(), s_all_h, p.has_stride_h(), 1);
    int sw = pick((int)p.stride_w(), s_all_w, p.has_stride_w(), 1);
    int ph = pick((int)p.pad_h(), p_all_h, p.has_pad_h(), 0);
    int pw = pick((int)p.pad_w(), p_all_w, p.has_pad_w(), 0);
    int num_output = (int)p.num_output();
    int group = (int)p.group();
    if (kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0 || d_h <= 0 || d_w <= 0 || ph < 0 || pw < 0 || kh > 65536 || kw > 65536)
        fail(l, "bad kernel/stride/pad/dilation");
    if (num_output <= 0 || group <= 0 || num_output % group != 0)
        fail(l, "num_output " + std::to_string(num_output) + " and group " + std::to_string(group) + " do not fit");
    if (l.bottom_size() != 1 || l.top_size() != 1)
        fail(l, "needs one bottom and one top");

    long long maxk = (long long)kh * kw;
    std::vector<float> wt = blob(l, 0, -1);
    long long per = (long long)(num_output / group) * maxk; // values per input channel of a group
    if ((long long)wt.size() % per != 0 && !deconv)
        fail(l, "weight blob has " + std::to_string(wt.size()) + " values, not a multiple of num_output*kernel");
    if (deconv)
    {
        // Caffe: [inch][outch/group][kh][kw] -> kite: [outch][inch/group][kh][kw]
        if ((long long)wt.size() % per != 0)
            fail(l, "weight blob has " + std::to_string(wt.size()) + " values, not a multiple of num_output/group*kernel");
        long long inch = (long long)wt.size() / per;
        if (inch % group != 0)
            fail(l, "input channels " + std::to_string(inch) + " not divisible by group");
        long long ing = inch / group, outg = num_output / group;
        std::vector<float> t(wt.size());
        for (long long gi = 0; gi < group; gi++)
            for (long long o = 0; o < outg; o++)
                for (long long i = 0; i < ing; i++)
                    for (long long k = 0; k < maxk; k++)
                        t[(((gi * outg + o) * ing + i) * maxk) + k] = wt[(((gi * ing + i) * outg + o) * maxk) + k];
        wt.swap(t);
    }
    // Deconvolution reads the same ids for these fields
    convert::ConvolutionSpec s;
    s.type = deconv ? (group > 1 ? "DeconvolutionDepthWise" : "Deconvolution")
                    : (group > 1 ? "ConvolutionDepthWise" : "Convolution");
    s.num_output = num_output;
    s.kernel(kw, kh).dilation(d_w, d_h).stride(sw, sh);
    s.pad_left = pw;
    s.pad_top = ph;
    s.bias_term = p.bias_term() ? 1 : 0;
    s.weight_data_size = (int)wt.size();
    if (group > 1)
        s.group = group;
    Layer& k = emit(l, s);
    k.weights.push_back(Weight(std::move(wt), true));
    if (p.bias_term())
        k.weights.push_back(Weight(blob(l, 1, num_output), false));
}

void Converter::pooling(const LayerParameter& l)
{
    const pb::PoolingParameter& p = l.pooling_param();
    if (p.pool() == pb::PoolingParameter::STOCHASTIC)
    {
        unsupported.add("Pooling", l.name(), "pool STOCHASTIC");
        return;
    }
    const int type = p.pool() == pb::PoolingParameter::MAX ? convert::PoolingSpec::MAX : convert::PoolingSpec::AVG;
    convert::PoolingSpec s;
    s.pooling_type = type;
    if (p.global_pooling())
    {
        s.global_pooling = 1;
        emit(l, s);
        return;
    }
    int kh = p.has_kernel_h() ? (int)p.kernel_h() : (int)p.kernel_size();
    int kw = p.has_kernel_w() ? (int)p.kernel_w() : (int)p.kernel_size();
    int sh = p.has_stride_h() ? (int)p.stride_h() : (int)p.stride();
    int sw = p.has_stride_w() ? (int)p.stride_w() : (int)p.stride();
    int ph = p.has_pad_h() ? (int)p.pad_h() : (int)p.pad();
    int pw = p.has_pad_w() ? (int)p.pad_w() : (int)p.pad();
    if (kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0 || ph < 0 || pw < 0 || ph >= kh || pw >= kw)
        fail(l, "bad kernel/stride/pad");
    bool floor_mode = p.round_mode() == pb::PoolingParameter::FLOOR;
    std::vector<std::string> bottoms(l.bottom().begin(), l.bottom().end());
    if (bottoms.size() != 1 || l.top_size() != 1)
        fail(l, "needs one bottom and one top");
    // Caffe's average counts the pads up to input + pad but not the ceil-mode
    // tail: in ceil mode the pads are made real zeros by a Padding layer and
    // the pooling excludes only its own tail.
    if (type == convert::PoolingSpec::AVG && !floor_mode && (ph > 0 || pw > 0))
    {
        std::string padded = g.unique_blob_name(l.name() + "_pad");
        convert::PaddingSpec pad;
        pad.top = ph;
        pad.bottom = ph;
        pad.left = pw;
        pad.right = pw;
        convert::emit(g, pad, l.name() + "_pad", bottoms, {padded});
        bottoms = {padded};
        ph = pw = 0;
    }
    s.kernel(kw, kh).stride(sw, sh).pads(pw, pw, ph, ph);
    s.pad_mode = floor_mode ? 1 : 0;
    if (floor_mode && type == convert::PoolingSpec::AVG)
        s.avgpool_count_include_pad = 1;
    convert::emit(g, s, l.name(), bottoms, {l.top(0)});
    // Caffe drops a last ceil-mode window that starts inside the right/bottom
    // pad; that can only happen when pad > kernel - stride
    if (!floor_mode && ((ph > 0 && ph > kh - sh) || (pw > 0 && pw > kw - sw)))
        fprintf(stderr, "caffe2kite: warning: pooling '%s': pad > kernel - stride, the output may have one row/column more than Caffe's\n",
                l.name().c_str());
}

void Converter::inner_product(const LayerParameter& l)
{
    const pb::InnerProductParameter& p = l.inner_product_param();
    int num_output = (int)p.num_output();
    if (num_output <= 0)
        fail(l, "num_output must be positive");
    if (p.axis() != 1)
        fail(l, "axis " + std::to_string(p.axis()) + " (only 1)");
    std::vector<float> wt = blob(l, 0, -1);
    if (wt.size() % num_output != 0)
        fail(l, "weight blob has " + std::to_string(wt.size()) + " values, not a multiple of num_output");
    if (p.transpose())
    {
        size_t K = wt.size() / num_output;
        std::vector<float> t(wt.size());
        for (size_t kk = 0; kk < K; kk++)
            for (int o = 0; o < num_output; o++)
                t[(size_t)o * K + kk] = wt[kk * num_output + o];
        wt.swap(t);
    }
    convert::InnerProductSpec s;
    s.num_output = num_output;
    s.bias_term = p.bias_term() ? 1 : 0;
    s.weight_data_size = (int)wt.size();
    Layer& k = emit(l, s);
    k.weights.push_back(Weight(std::move(wt), true));
    if (p.bias_term())
        k.weights.push_back(Weight(blob(l, 1, num_output), false));
}

void Converter::batch_norm(const LayerParameter& l)
{
    std::vector<float> mean = blob(l, 0, -1);
    long long n = (long long)mean.size();
    std::vector<float> var = blob(l, 1, n);
    std::vector<float> sf = blob_count(l) > 2 || !allow_missing ? blob(l, 2, 1) : std::vector<float>{1.f};
    float f = sf[0] == 0.f ? 0.f : 1.f / sf[0];
    for (long long i = 0; i < n; i++)
    {
        mean[i] *= f;
        var[i] *= f;
    }
    convert::BatchNormSpec s;
    s.channels = (int)n;
    s.eps = l.batch_norm_param().eps();
    Layer& k = emit(l, s);
    k.weights.push_back(Weight(std::vector<float>((size_t)n, 1.f), false));
    k.weights.push_back(Weight(std::move(mean), false));
    k.weights.push_back(Weight(std::move(var), false));
    k.weights.push_back(Weight(std::vector<float>((size_t)n, 0.f), false));
}

void Converter::scale(const LayerParameter& l)
{
    const pb::ScaleParameter& p = l.scale_param();
    if (p.axis() != 1 || (l.bottom_size() == 1 && p.num_axes() != 1))
        fail(l, "only axis 1 with num_axes 1 (per-channel scale) is supported");
    convert::ScaleSpec spec;
    spec.bias_term = p.bias_term() ? 1 : 0;
    if (l.bottom_size() == 2)
    {
        if (p.bias_term())
            fail(l, "a bias with the scale from a second bottom is not supported");
        spec.scale_data_size = -233; // the scale is the second bottom
        emit(l, spec);
        return;
    }
    std::vector<float> s = blob(l, 0, -1);
    int n = (int)s.size();
    spec.scale_data_size = n;
    Layer& k = emit(l, spec);
    k.weights.push_back(Weight(std::move(s), false));
    if (p.bias_term())
        k.weights.push_back(Weight(blob(l, 1, n), false));
}

void Converter::reshape(const LayerParameter& l)
{
    const pb::ReshapeParameter& p = l.reshape_param();
    if (p.axis() != 0 || p.num_axes() != -1)
        fail(l, "only axis 0 with num_axes -1 is supported");
    std::vector<long long> d(p.shape().dim().begin(), p.shape().dim().end());
    if (d.size() < 2 || d.size() > 5 || (d[0] != 0 && d[0] != 1))
        fail(l, "the shape must keep the batch (first dim 0 or 1) and have 1..4 more dims");
    d.erase(d.begin());
    for (size_t i = 0; i < d.size(); i++)
    {
        if (d[i] < -1 || d[i] > INT_MAX)
            fail(l, "bad shape dim " + std::to_string(d[i]));
        // Caffe's 0 copies the input axis at the same position from the
        // front, kite's the same axis from the back: equal only for 3 dims
        if (d[i] == 0 && d.size() != 3)
            fail(l, "dim 0 (copy) is supported only in a 4-D shape");
    }
    convert::ReshapeSpec s;
    int n = (int)d.size();
    s.w = (int)d[n - 1];
    if (n >= 2)
        s.h = (int)d[n - 2];
    if (n == 3)
        s.c = (int)d[0];
    if (n == 4)
    {
        s.d = (int)d[1];
        s.c = (int)d[0];
    }
    emit(l, s);
}

void Converter::permute(const LayerParameter& l)
{
    std::vector<int> order(l.permute_param().order().begin(), l.permute_param().order().end());
    // Caffe completes a partial order with the axes not named, in order
    std::set<int> used(order.begin(), order.end());
    for (int a : order)
        if (a < 0 || a > 3)
            fail(l, "bad permute axis " + std::to_string(a) + " (4-D blobs only)");
    if (used.size() != order.size())
        fail(l, "repeated permute axis");
    for (int a = 0; a < 4; a++)
        if (!used.count(a))
            order.push_back(a);
    if (order[0] != 0)
        fail(l, "permuting the batch axis is not supported");
    // 4-D: out (c, h, w) = in axes order[1..3]; name axes 1 c, 2 h, 3 w
    const char* names = "?chw";
    std::string key;
    key += names[order[3]];
    key += names[order[2]];
    key += names[order[1]];
    const char* types[6] = {"whc", "hwc", "wch", "cwh", "hcw", "chw"};
    int t = -1;
    for (int i = 0; i < 6; i++)
        if (key == types[i])
            t = i;
    if (t < 0)
        fail(l, "unsupported order");
    emit(l, convert::PermuteSpec::order(t));
}

void Converter::prior_box(const LayerParameter& l)
{
    const pb::PriorBoxParameter& p = l.prior_box_param();
    if (l.bottom_size() != 2)
        fail(l, "needs two bottoms (feature map, image)");
    if (p.min_size_size() == 0)
        fail(l, "no min_size");
    if (p.max_size_size() != 0 && p.max_size_size() != p.min_size_size())
        fail(l, "max_size count differs from min_size count");
    convert::PriorBoxSpec s;
    s.min_sizes = std::vector<float>(p.min_size().begin(), p.min_size().end());
    if (p.max_size_size() > 0)
        s.max_sizes = std::vector<float>(p.max_size().begin(), p.max_size().end());
    // Caffe skips ratios equal to 1 or to one seen before
    std::vector<float> ars;
    for (float a : p.aspect_ratio())
    {
        bool dup = std::fabs(a - 1.f) < 1e-6f;
        for (float b : ars)
            dup = dup || std::fabs(a - b) < 1e-6f;
        if (!(a > 0.f))
            fail(l, "aspect_ratio must be positive");
        if (!dup)
            ars.push_back(a);
    }
    if (!ars.empty())
        s.aspect_ratios = ars;
    float v[4] = {0.1f, 0.1f, 0.1f, 0.1f};
    if (p.variance_size() == 1)
        v[0] = v[1] = v[2] = v[3] = p.variance(0);
    else if (p.variance_size() == 4)
        for (int i = 0; i < 4; i++)
            v[i] = p.variance(i);
    else if (p.variance_size() != 0)
        fail(l, "variance needs 1 or 4 values");
    for (int i = 0; i < 4; i++)
        s.variance[i] = v[i];
    s.flip = p.flip() ? 1 : 0;
    s.clip = p.clip() ? 1 : 0;
    int iw = -233, ih = -233;
    if (p.has_img_h() || p.has_img_w())
    {
        ih = (int)p.img_h();
        iw = (int)p.img_w();
    }
    else if (p.has_img_size())
        iw = ih = (int)p.img_size();
    s.image_width = iw;
    s.image_height = ih;
    float stw = -233.f, sth = -233.f;
    if (p.has_step_h() || p.has_step_w())
    {
        sth = p.step_h();
        stw = p.step_w();
    }
    else if (p.has_step())
        stw = sth = p.step();
    s.step_width = stw;
    s.step_height = sth;
    s.offset = p.offset();
    emit(l, s);
}

void Converter::detection_output(const LayerParameter& l)
{
    const pb::DetectionOutputParameter& p = l.detection_output_param();
    if (l.bottom_size() != 3)
        fail(l, "needs three bottoms (loc, conf, priorbox)");
    if (!p.share_location() || p.background_label_id() != 0 || p.code_type() != pb::DetectionOutputParameter::CENTER_SIZE
        || p.variance_encoded_in_target())
    {
        unsupported.add("DetectionOutput", l.name(),
                        "only share_location, background_label_id 0, code_type CENTER_SIZE, variances not encoded in target");
        return;
    }
    convert::DetectionOutputSpec s;
    s.num_class = (int)p.num_classes();
    s.nms_threshold = p.nms_param().nms_threshold();
    s.nms_top_k = p.nms_param().has_top_k() ? p.nms_param().top_k() : -1;
    s.keep_top_k = p.keep_top_k();
    s.confidence_threshold = p.confidence_threshold();
    emit(l, s);
}

void Converter::crop(const LayerParameter& l)
{
    const pb::CropParameter& p = l.crop_param();
    if (l.bottom_size() != 2)
        fail(l, "needs two bottoms (input, reference)");
    int axis = p.axis();
    if (axis < 0)
        axis += 4;
    if (axis < 1 || axis > 3)
        fail(l, "axis " + std::to_string(p.axis()) + " (1..3 of a 4-D blob)");
    // offsets of c, h, w (axes before `axis` are not cropped)
    int off[3] = {0, 0, 0};
    for (int a = axis; a <= 3; a++)
    {
        int i = a - axis;
        off[a - 1] = p.offset_size() == 0 ? 0 : p.offset_size() == 1 ? (int)p.offset(0) : i < p.offset_size() ? (int)p.offset(i) : -1;
        if (off[a - 1] < 0)
            fail(l, "needs one offset or one per cropped axis");
    }
    std::string ref = l.bottom(1);
    if (axis >= 2)
    {
        // the reference must not give its channel count: pass a 2-D (h, w)
        // view of its first channel
        std::string one = g.unique_blob_name(l.name() + "_ref_c0");
        convert::CropSpec c0;
        c0.starts = std::vector<int>{0};
        c0.ends = std::vector<int>{1};
        c0.axes = std::vector<int>{0};
        convert::emit(g, c0, l.name() + "_ref_c0", {ref}, {one});
        std::string flat = g.unique_blob_name(l.name() + "_ref_hw");
        convert::ReshapeSpec r;
        r.w = 0;
        r.h = 0;
        convert::emit(g, r, l.name() + "_ref_hw", {one}, {flat});
        ref = flat;
    }
    if (axis == 3)
        fail(l, "cropping the width only is not supported");
    convert::CropSpec s;
    s.woffset = off[2];
    s.hoffset = off[1];
    s.coffset = off[0];
    convert::emit(g, s, l.name(), {l.bottom(0), ref}, {l.top(0)});
}

void Converter::slice(const LayerParameter& l)
{
    const pb::SliceParameter& p = l.slice_param();
    int axis = p.has_axis() ? p.axis() : p.has_slice_dim() ? (int)p.slice_dim() : 1;
    if (axis == 0)
        fail(l, "slicing the batch axis is not supported");
    std::vector<int> sizes;
    if (p.slice_point_size() > 0)
    {
        if (p.slice_point_size() != l.top_size() - 1)
            fail(l, "needs one slice_point fewer than tops");
        int prev = 0;
        for (uint32_t s : p.slice_point())
        {
            if ((int)s <= prev || s > INT_MAX)
                fail(l, "slice points must increase");
            sizes.push_back((int)s - prev);
            prev = (int)s;
        }
        sizes.push_back(-233);
    }
    else
        sizes.assign(l.top_size(), -233);
    convert::SliceSpec s;
    s.slices = sizes;
    s.axis = axis > 0 ? axis - 1 : axis;
    emit(l, s);
}

void Converter::layer(const LayerParameter& l)
{
    const std::string& t = l.type();
    if (t == "Input")
    {
        const pb::InputParameter& p = l.input_param();
        for (int i = 0; i < l.top_size(); i++)
        {
            std::vector<long long> dims;
            if (p.shape_size() > 0)
            {
                const pb::BlobShape& s = p.shape(p.shape_size() == 1 ? 0 : std::min(i, p.shape_size() - 1));
                dims.assign(s.dim().begin(), s.dim().end());
            }
            input(l.top(i), dims, "layer '" + l.name() + "'");
        }
        return;
    }
    if (t == "Convolution" || t == "Deconvolution")
        return convolution(l, t == "Deconvolution");
    if (t == "Pooling")
        return pooling(l);
    if (t == "InnerProduct")
        return inner_product(l);
    if (t == "BatchNorm")
        return batch_norm(l);
    if (t == "Scale")
        return scale(l);
    if (t == "Reshape")
        return reshape(l);
    if (t == "Permute")
        return permute(l);
    if (t == "PriorBox")
        return prior_box(l);
    if (t == "DetectionOutput")
        return detection_output(l);
    if (t == "Crop")
        return crop(l);
    if (t == "Slice")
        return slice(l);
    if (t == "ReLU")
    {
        convert::ReLUSpec s;
        if (l.relu_param().negative_slope() != 0.f)
            s.slope = l.relu_param().negative_slope();
        emit(l, s);
        return;
    }
    if (t == "ReLU6")
    {
        convert::ClipSpec s;
        s.min = 0.f;
        s.max = 6.f;
        emit(l, s);
        return;
    }
    if (t == "Clip")
    {
        convert::ClipSpec s;
        s.min = l.clip_param().min();
        s.max = l.clip_param().max();
        emit(l, s);
        return;
    }
    if (t == "Sigmoid" || t == "TanH" || t == "AbsVal" || t == "BNLL" || t == "Split" || t == "Dropout")
    {
        add(l, t);
        return;
    }
    if (t == "Swish")
    {
        if (l.swish_param().beta() != 1.f)
            fail(l, "only beta 1");
        add(l, "Swish");
        return;
    }
    if (t == "ELU")
    {
        convert::ELUSpec s;
        s.alpha = l.elu_param().alpha();
        emit(l, s);
        return;
    }
    if (t == "Power" || t == "Exp" || t == "Log")
    {
        if (t == "Power")
        {
            convert::PowerSpec s;
            s.power = l.power_param().power();
            s.scale = l.power_param().scale();
            s.shift = l.power_param().shift();
            emit(l, s);
            return;
        }
        // Exp and Log read the same (base, scale, shift)
        const pb::ExpParameter& p = t == "Exp" ? l.exp_param() : l.log_param();
        convert::ExpSpec s;
        s.type = t;
        s.base = p.base();
        s.scale = p.scale();
        s.shift = p.shift();
        emit(l, s);
        return;
    }
    if (t == "Threshold")
    {
        convert::ThresholdSpec s;
        s.threshold = l.threshold_param().threshold();
        emit(l, s);
        return;
    }
    if (t == "PReLU")
    {
        std::vector<float> s = blob(l, 0, -1);
        if (l.prelu_param().channel_shared() && s.size() != 1)
            fail(l, "channel_shared needs one slope");
        convert::PReLUSpec spec;
        spec.num_slope = (int)s.size();
        Layer& k = emit(l, spec);
        k.weights.push_back(Weight(std::move(s), false));
        return;
    }
    if (t == "Bias")
    {
        if (l.bottom_size() != 1 || l.bias_param().axis() != 1 || l.bias_param().num_axes() != 1)
            fail(l, "only a learned per-channel bias (one bottom, axis 1, num_axes 1)");
        std::vector<float> b = blob(l, 0, -1);
        convert::BiasSpec s;
        s.bias_data_size = (int)b.size();
        Layer& k = emit(l, s);
        k.weights.push_back(Weight(std::move(b), false));
        return;
    }
    if (t == "LRN")
    {
        const pb::LRNParameter& p = l.lrn_param();
        convert::LRNSpec s;
        s.region_type = (int)p.norm_region();
        s.local_size = (int)p.local_size();
        s.alpha = p.alpha();
        s.beta = p.beta();
        s.bias = p.k();
        emit(l, s);
        return;
    }
    if (t == "Softmax")
    {
        int axis = l.softmax_param().axis();
        if (axis == 0)
            fail(l, "softmax over the batch axis is not supported");
        convert::SoftmaxSpec s;
        s.axis = axis > 0 ? axis - 1 : axis;
        s.fixbug0 = 1;
        emit(l, s);
        return;
    }
    if (t == "Concat")
    {
        const pb::ConcatParameter& p = l.concat_param();
        int axis = p.has_axis() ? p.axis() : (int)p.concat_dim();
        if (axis == 0)
            fail(l, "concatenating along the batch axis is not supported");
        emit(l, convert::ConcatSpec::on(axis > 0 ? axis - 1 : axis));
        return;
    }
    if (t == "Eltwise")
    {
        const pb::EltwiseParameter& p = l.eltwise_param();
        convert::EltwiseSpec s;
        s.op_type = (int)p.operation(); // Caffe's PROD, SUM, MAX = Eltwise::Operation_*
        if (p.coeff_size() > 0)
        {
            if (p.coeff_size() != l.bottom_size())
                fail(l, "needs one coeff per bottom");
            s.coeffs = std::vector<float>(p.coeff().begin(), p.coeff().end());
        }
        emit(l, s);
        return;
    }
    if (t == "Flatten")
    {
        const pb::FlattenParameter& p = l.flatten_param();
        if (p.axis() != 1 || p.end_axis() != -1)
            fail(l, "only axis 1 to the end is supported");
        add(l, "Flatten");
        return;
    }
    if (t == "Normalize")
    {
        const pb::NormalizeParameter& p = l.norm_param();
        std::vector<float> s = blob(l, 0, -1);
        if (p.channel_shared() && s.size() != 1)
            fail(l, "channel_shared needs one scale");
        convert::NormalizeSpec spec;
        spec.across_spatial = p.across_spatial() ? 1 : 0;
        spec.channel_shared = p.channel_shared() ? 1 : 0;
        spec.eps = p.eps();
        spec.scale_data_size = (int)s.size();
        spec.across_channel = 1;
        spec.eps_mode = 0;
        Layer& k = emit(l, spec);
        k.weights.push_back(Weight(std::move(s), false));
        return;
    }
    if (t == "MVN")
    {
        const pb::MVNParameter& p = l.mvn_param();
        convert::MVNSpec s;
        s.normalize_variance = p.normalize_variance() ? 1 : 0;
        s.across_channels = p.across_channels() ? 1 : 0;
        s.eps = p.eps();
        emit(l, s);
        return;
    }
    if (t == "ArgMax")
    {
        const pb::ArgMaxParameter& p = l.argmax_param();
        if (p.has_axis())
            fail(l, "argmax along one axis is not supported (only over all)");
        convert::ArgMaxSpec s;
        s.out_max_val = p.out_max_val() ? 1 : 0;
        s.topk = (int)p.top_k();
        emit(l, s);
        return;
    }
    if (t == "Interp")
    {
        // bilinear with corners aligned, to a fixed size (zoom/shrink factors
        // depend on the input size, which is not known here)
        const pb::InterpParameter& p = l.interp_param();
        if (p.height() <= 0 || p.width() <= 0 || p.pad_beg() != 0 || p.pad_end() != 0 || l.bottom_size() != 1)
            fail(l, "only a fixed output height/width without pads is supported");
        convert::InterpSpec s;
        s.resize_type = 2; // bilinear
        s.output_height = p.height();
        s.output_width = p.width();
        s.align_corner = 1;
        emit(l, s);
        return;
    }
    if (t == "ShuffleChannel")
    {
        convert::ShuffleChannelSpec s;
        s.group = (int)l.shuffle_channel_param().group();
        emit(l, s);
        return;
    }
    if (t == "Tile")
    {
        int axis = l.tile_param().axis();
        if (axis == 0)
            fail(l, "tiling the batch axis is not supported");
        convert::TileSpec s;
        s.axis = axis > 0 ? axis - 1 : axis;
        s.tiles = l.tile_param().tiles();
        emit(l, s);
        return;
    }
    if (t == "Embed")
    {
        const pb::EmbedParameter& p = l.embed_param();
        int n = (int)p.num_output(), in = (int)p.input_dim();
        if (n <= 0 || in <= 0)
            fail(l, "num_output and input_dim must be positive");
        convert::EmbedSpec s;
        s.num_output = n;
        s.input_dim = in;
        s.bias_term = p.bias_term() ? 1 : 0;
        s.weight_data_size = n * in;
        Layer& k = emit(l, s);
        k.weights.push_back(Weight(blob(l, 0, (long long)n * in), true));
        if (p.bias_term())
            k.weights.push_back(Weight(blob(l, 1, n), false));
        return;
    }
    if (t == "Silence")
        return; // consumes blobs, produces nothing
    unsupported.add(t, l.name());
}

} // namespace

int convert_caffe(const std::string& prototxt, const std::string& model, Graph& g, convert::UnsupportedOps& unsupported,
                  std::string& error, bool allow_missing_weights)
{
    NetParameter net;
    {
        google::protobuf::TextFormat::Parser parser;
        parser.AllowUnknownField(true);
        parser.AllowUnknownExtension(true);
        TextErrors errors;
        parser.RecordErrorsTo(&errors);
        if (!parser.ParseFromString(prototxt, &net))
        {
            error = "prototxt: " + (errors.first.empty() ? std::string("not a Caffe text NetParameter") : errors.first);
            return -1;
        }
    }
    NetParameter weights;
    if (!model.empty())
    {
        google::protobuf::io::ArrayInputStream ais(model.data(), (int)std::min(model.size(), (size_t)INT_MAX));
        google::protobuf::io::CodedInputStream cis(&ais);
        cis.SetTotalBytesLimit(INT_MAX);
        if (!weights.ParseFromCodedStream(&cis) || !cis.ConsumedEntireMessage())
        {
            error = "caffemodel: not a valid binary NetParameter (truncated or not a .caffemodel)";
            return -1;
        }
    }

    std::vector<LayerParameter> layers, wlayers;
    all_layers(net, layers);
    all_layers(weights, wlayers);
    std::map<std::string, const LayerParameter*> wmap;
    for (const LayerParameter& l : wlayers)
        if (l.blobs_size() > 0)
            wmap[l.name()] = &l;
    if (!model.empty() && wmap.empty() && !layers.empty())
    {
        bool needs = false;
        for (const LayerParameter& l : layers)
            needs = needs || l.type() == "Convolution" || l.type() == "InnerProduct";
        if (needs)
        {
            error = "caffemodel: holds no layer with weights";
            return -1;
        }
    }

    Converter cv(g, unsupported, allow_missing_weights || model.empty());
    cv.set_weights(wmap);
    try
    {
        // net-level inputs: input + input_shape or input_dim (4 per input)
        for (int i = 0; i < net.input_size(); i++)
        {
            std::vector<long long> dims;
            if (i < net.input_shape_size())
                dims.assign(net.input_shape(i).dim().begin(), net.input_shape(i).dim().end());
            else if (net.input_dim_size() >= 4 * (i + 1))
                for (int k = 0; k < 4; k++)
                    dims.push_back(net.input_dim(4 * i + k));
            cv.input(net.input(i), dims, "net input");
        }
        for (const LayerParameter& l : layers)
        {
            if (!in_test_phase(l))
                continue;
            if (l.top_size() == 0 && l.type() != "Silence")
                fail(l, "has no top");
            cv.layer(l);
        }
    }
    catch (const convert::ConvertError& e)
    {
        error = e.what();
        return -1;
    }
    catch (const std::bad_alloc&)
    {
        error = "out of memory while converting";
        return -1;
    }
    if (g.layers.empty() && unsupported.empty())
    {
        error = "prototxt: no layers";
        return -1;
    }
    return unsupported.empty() ? 0 : 1;
}

} // namespace caffe
} // namespace convert
} // namespace kite
