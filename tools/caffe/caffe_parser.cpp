// Caffe -> kite: every layer becomes one or a few ncnn-format layers with
// the parameters and weight layout kite's layers read (docs/model-format.md).

#include "caffe_parser.h"

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
namespace caffe {

using convert::Graph;
using convert::Layer;
using convert::Weight;
using kite_caffe::BlobProto;
using kite_caffe::LayerParameter;
using kite_caffe::NetParameter;

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
    using V1 = kite_caffe::V1LayerParameter;
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
void upgrade_v1(const kite_caffe::V1LayerParameter& v1, LayerParameter& l)
{
    l.set_name(v1.name());
    const char* t = v1_type_name(v1.type());
    l.set_type(t ? t : "V1_" + kite_caffe::V1LayerParameter::LayerType_Name(v1.type()) + std::to_string((int)v1.type()));
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
    for (const kite_caffe::V1LayerParameter& v1 : net.layers())
    {
        LayerParameter l;
        upgrade_v1(v1, l);
        out.push_back(l);
    }
}

bool in_test_phase(const LayerParameter& l)
{
    if (l.has_phase() && l.phase() == kite_caffe::TRAIN)
        return false;
    for (const kite_caffe::NetStateRule& r : l.include())
        if (r.has_phase() && r.phase() == kite_caffe::TEST)
            return true;
    if (l.include_size() > 0)
        return false;
    for (const kite_caffe::NetStateRule& r : l.exclude())
        if (r.has_phase() && r.phase() == kite_caffe::TEST)
            return false;
    return true;
}

// a layer failed: thrown inside this file only, caught by convert_caffe
struct Failure
{
    std::string what;
};

[[noreturn]] void fail(const LayerParameter& l, const std::string& what)
{
    throw Failure{"layer '" + l.name() + "' (" + l.type() + "): " + what};
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
            throw Failure{where + ": input '" + blob + "' has a bad dimension " + std::to_string(d)};
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
        throw Failure{where + ": input '" + blob + "' has " + std::to_string(dims.size()) + " dims (1..4 supported)"};
    g.add_input(blob, w, h, c);
}

// --- layer kinds ---------------------------------------------------------

static int pick(int v_hw, int v_all, bool has_hw, int def)
{
    return has_hw ? v_hw : (v_all >= 0 ? v_all : def);
}

void Converter::convolution(const LayerParameter& l, bool deconv)
{
    const kite_caffe::ConvolutionParameter& p = l.convolution_param();
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
    Layer& k = add(l, deconv ? (group > 1 ? "DeconvolutionDepthWise" : "Deconvolution")
                             : (group > 1 ? "ConvolutionDepthWise" : "Convolution"));
    k.params.set(0, num_output);
    k.params.set(1, kw);
    k.params.set(11, kh);
    k.params.set(2, d_w);
    k.params.set(12, d_h);
    k.params.set(3, sw);
    k.params.set(13, sh);
    k.params.set(4, pw);
    k.params.set(14, ph);
    k.params.set(5, p.bias_term() ? 1 : 0);
    k.params.set(6, (int)wt.size());
    if (group > 1)
        k.params.set(7, group);
    k.weights.push_back(Weight(std::move(wt), true));
    if (p.bias_term())
        k.weights.push_back(Weight(blob(l, 1, num_output), false));
}

void Converter::pooling(const LayerParameter& l)
{
    const kite_caffe::PoolingParameter& p = l.pooling_param();
    if (p.pool() == kite_caffe::PoolingParameter::STOCHASTIC)
    {
        unsupported.add("Pooling", l.name(), "pool STOCHASTIC");
        return;
    }
    int type = p.pool() == kite_caffe::PoolingParameter::MAX ? 0 : 1;
    if (p.global_pooling())
    {
        Layer& k = add(l, "Pooling");
        k.params.set(0, type);
        k.params.set(4, 1);
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
    bool floor_mode = p.round_mode() == kite_caffe::PoolingParameter::FLOOR;
    std::vector<std::string> bottoms(l.bottom().begin(), l.bottom().end());
    if (bottoms.size() != 1 || l.top_size() != 1)
        fail(l, "needs one bottom and one top");
    // Caffe's average counts the pads up to input + pad but not the ceil-mode
    // tail: in ceil mode the pads are made real zeros by a Padding layer and
    // the pooling excludes only its own tail.
    if (type == 1 && !floor_mode && (ph > 0 || pw > 0))
    {
        std::string padded = g.unique_blob_name(l.name() + "_pad");
        Layer& pad = g.add("Padding", l.name() + "_pad", bottoms, {padded});
        pad.params.set(0, ph);
        pad.params.set(1, ph);
        pad.params.set(2, pw);
        pad.params.set(3, pw);
        bottoms = {padded};
        ph = pw = 0;
    }
    Layer& k = g.add("Pooling", l.name(), bottoms, {l.top(0)});
    k.params.set(0, type);
    k.params.set(1, kw);
    k.params.set(11, kh);
    k.params.set(2, sw);
    k.params.set(12, sh);
    k.params.set(3, pw);
    k.params.set(13, ph);
    k.params.set(14, pw);
    k.params.set(15, ph);
    k.params.set(5, floor_mode ? 1 : 0);
    if (floor_mode && type == 1)
        k.params.set(6, 1);
    // Caffe drops a last ceil-mode window that starts inside the right/bottom
    // pad; that can only happen when pad > kernel - stride
    if (!floor_mode && ((ph > 0 && ph > kh - sh) || (pw > 0 && pw > kw - sw)))
        fprintf(stderr, "caffe2kite: warning: pooling '%s': pad > kernel - stride, the output may have one row/column more than Caffe's\n",
                l.name().c_str());
}

void Converter::inner_product(const LayerParameter& l)
{
    const kite_caffe::InnerProductParameter& p = l.inner_product_param();
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
    Layer& k = add(l, "InnerProduct");
    k.params.set(0, num_output);
    k.params.set(1, p.bias_term() ? 1 : 0);
    k.params.set(2, (int)wt.size());
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
    Layer& k = add(l, "BatchNorm");
    k.params.set(0, (int)n);
    k.params.set(1, l.batch_norm_param().eps());
    k.weights.push_back(Weight(std::vector<float>((size_t)n, 1.f), false));
    k.weights.push_back(Weight(std::move(mean), false));
    k.weights.push_back(Weight(std::move(var), false));
    k.weights.push_back(Weight(std::vector<float>((size_t)n, 0.f), false));
}

void Converter::scale(const LayerParameter& l)
{
    const kite_caffe::ScaleParameter& p = l.scale_param();
    if (p.axis() != 1 || (l.bottom_size() == 1 && p.num_axes() != 1))
        fail(l, "only axis 1 with num_axes 1 (per-channel scale) is supported");
    Layer& k = add(l, "Scale");
    if (l.bottom_size() == 2)
    {
        k.params.set(0, -233);
        k.params.set(1, p.bias_term() ? 1 : 0);
        if (p.bias_term())
            fail(l, "a bias with the scale from a second bottom is not supported");
        return;
    }
    std::vector<float> s = blob(l, 0, -1);
    int n = (int)s.size();
    k.params.set(0, n);
    k.params.set(1, p.bias_term() ? 1 : 0);
    k.weights.push_back(Weight(std::move(s), false));
    if (p.bias_term())
        k.weights.push_back(Weight(blob(l, 1, n), false));
}

void Converter::reshape(const LayerParameter& l)
{
    const kite_caffe::ReshapeParameter& p = l.reshape_param();
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
    Layer& k = add(l, "Reshape");
    int n = (int)d.size();
    k.params.set(0, (int)d[n - 1]);
    if (n >= 2)
        k.params.set(1, (int)d[n - 2]);
    if (n == 3)
        k.params.set(2, (int)d[0]);
    if (n == 4)
    {
        k.params.set(11, (int)d[1]);
        k.params.set(2, (int)d[0]);
    }
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
    Layer& k = add(l, "Permute");
    k.params.set(0, t);
}

void Converter::prior_box(const LayerParameter& l)
{
    const kite_caffe::PriorBoxParameter& p = l.prior_box_param();
    if (l.bottom_size() != 2)
        fail(l, "needs two bottoms (feature map, image)");
    if (p.min_size_size() == 0)
        fail(l, "no min_size");
    if (p.max_size_size() != 0 && p.max_size_size() != p.min_size_size())
        fail(l, "max_size count differs from min_size count");
    Layer& k = add(l, "PriorBox");
    k.params.set_floats(0, std::vector<float>(p.min_size().begin(), p.min_size().end()));
    if (p.max_size_size() > 0)
        k.params.set_floats(1, std::vector<float>(p.max_size().begin(), p.max_size().end()));
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
        k.params.set_floats(2, ars);
    float v[4] = {0.1f, 0.1f, 0.1f, 0.1f};
    if (p.variance_size() == 1)
        v[0] = v[1] = v[2] = v[3] = p.variance(0);
    else if (p.variance_size() == 4)
        for (int i = 0; i < 4; i++)
            v[i] = p.variance(i);
    else if (p.variance_size() != 0)
        fail(l, "variance needs 1 or 4 values");
    for (int i = 0; i < 4; i++)
        k.params.set(3 + i, v[i]);
    k.params.set(7, p.flip() ? 1 : 0);
    k.params.set(8, p.clip() ? 1 : 0);
    int iw = -233, ih = -233;
    if (p.has_img_h() || p.has_img_w())
    {
        ih = (int)p.img_h();
        iw = (int)p.img_w();
    }
    else if (p.has_img_size())
        iw = ih = (int)p.img_size();
    k.params.set(9, iw);
    k.params.set(10, ih);
    float stw = -233.f, sth = -233.f;
    if (p.has_step_h() || p.has_step_w())
    {
        sth = p.step_h();
        stw = p.step_w();
    }
    else if (p.has_step())
        stw = sth = p.step();
    k.params.set(11, stw);
    k.params.set(12, sth);
    k.params.set(13, p.offset());
}

void Converter::detection_output(const LayerParameter& l)
{
    const kite_caffe::DetectionOutputParameter& p = l.detection_output_param();
    if (l.bottom_size() != 3)
        fail(l, "needs three bottoms (loc, conf, priorbox)");
    if (!p.share_location() || p.background_label_id() != 0 || p.code_type() != kite_caffe::DetectionOutputParameter::CENTER_SIZE
        || p.variance_encoded_in_target())
    {
        unsupported.add("DetectionOutput", l.name(),
                        "only share_location, background_label_id 0, code_type CENTER_SIZE, variances not encoded in target");
        return;
    }
    Layer& k = add(l, "DetectionOutput");
    k.params.set(0, (int)p.num_classes());
    k.params.set(1, p.nms_param().nms_threshold());
    k.params.set(2, p.nms_param().has_top_k() ? p.nms_param().top_k() : -1);
    k.params.set(3, p.keep_top_k());
    k.params.set(4, p.confidence_threshold());
}

void Converter::crop(const LayerParameter& l)
{
    const kite_caffe::CropParameter& p = l.crop_param();
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
        Layer& c0 = g.add("Crop", l.name() + "_ref_c0", {ref}, {one});
        c0.params.set_ints(9, {0});
        c0.params.set_ints(10, {1});
        c0.params.set_ints(11, {0});
        std::string flat = g.unique_blob_name(l.name() + "_ref_hw");
        Layer& r = g.add("Reshape", l.name() + "_ref_hw", {one}, {flat});
        r.params.set(0, 0);
        r.params.set(1, 0);
        ref = flat;
    }
    if (axis == 3)
        fail(l, "cropping the width only is not supported");
    Layer& k = g.add("Crop", l.name(), {l.bottom(0), ref}, {l.top(0)});
    k.params.set(0, off[2]);
    k.params.set(1, off[1]);
    k.params.set(2, off[0]);
}

void Converter::slice(const LayerParameter& l)
{
    const kite_caffe::SliceParameter& p = l.slice_param();
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
    Layer& k = add(l, "Slice");
    k.params.set_ints(0, sizes);
    k.params.set(1, axis > 0 ? axis - 1 : axis);
}

void Converter::layer(const LayerParameter& l)
{
    const std::string& t = l.type();
    if (t == "Input")
    {
        const kite_caffe::InputParameter& p = l.input_param();
        for (int i = 0; i < l.top_size(); i++)
        {
            std::vector<long long> dims;
            if (p.shape_size() > 0)
            {
                const kite_caffe::BlobShape& s = p.shape(p.shape_size() == 1 ? 0 : std::min(i, p.shape_size() - 1));
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
        Layer& k = add(l, "ReLU");
        if (l.relu_param().negative_slope() != 0.f)
            k.params.set(0, l.relu_param().negative_slope());
        return;
    }
    if (t == "ReLU6")
    {
        Layer& k = add(l, "Clip");
        k.params.set(0, 0.f);
        k.params.set(1, 6.f);
        return;
    }
    if (t == "Clip")
    {
        Layer& k = add(l, "Clip");
        k.params.set(0, l.clip_param().min());
        k.params.set(1, l.clip_param().max());
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
        add(l, "ELU").params.set(0, l.elu_param().alpha());
        return;
    }
    if (t == "Power" || t == "Exp" || t == "Log")
    {
        // the three share the ids 0 power/base, 1 scale, 2 shift
        Layer& k = add(l, t);
        if (t == "Power")
        {
            k.params.set(0, l.power_param().power());
            k.params.set(1, l.power_param().scale());
            k.params.set(2, l.power_param().shift());
            return;
        }
        const kite_caffe::ExpParameter& p = t == "Exp" ? l.exp_param() : l.log_param();
        k.params.set(0, p.base());
        k.params.set(1, p.scale());
        k.params.set(2, p.shift());
        return;
    }
    if (t == "Threshold")
    {
        add(l, "Threshold").params.set(0, l.threshold_param().threshold());
        return;
    }
    if (t == "PReLU")
    {
        std::vector<float> s = blob(l, 0, -1);
        if (l.prelu_param().channel_shared() && s.size() != 1)
            fail(l, "channel_shared needs one slope");
        Layer& k = add(l, "PReLU");
        k.params.set(0, (int)s.size());
        k.weights.push_back(Weight(std::move(s), false));
        return;
    }
    if (t == "Bias")
    {
        if (l.bottom_size() != 1 || l.bias_param().axis() != 1 || l.bias_param().num_axes() != 1)
            fail(l, "only a learned per-channel bias (one bottom, axis 1, num_axes 1)");
        std::vector<float> b = blob(l, 0, -1);
        Layer& k = add(l, "Bias");
        k.params.set(0, (int)b.size());
        k.weights.push_back(Weight(std::move(b), false));
        return;
    }
    if (t == "LRN")
    {
        const kite_caffe::LRNParameter& p = l.lrn_param();
        Layer& k = add(l, "LRN");
        k.params.set(0, (int)p.norm_region());
        k.params.set(1, (int)p.local_size());
        k.params.set(2, p.alpha());
        k.params.set(3, p.beta());
        k.params.set(4, p.k());
        return;
    }
    if (t == "Softmax")
    {
        int axis = l.softmax_param().axis();
        if (axis == 0)
            fail(l, "softmax over the batch axis is not supported");
        Layer& k = add(l, "Softmax");
        k.params.set(0, axis > 0 ? axis - 1 : axis);
        k.params.set(1, 1);
        return;
    }
    if (t == "Concat")
    {
        const kite_caffe::ConcatParameter& p = l.concat_param();
        int axis = p.has_axis() ? p.axis() : (int)p.concat_dim();
        if (axis == 0)
            fail(l, "concatenating along the batch axis is not supported");
        add(l, "Concat").params.set(0, axis > 0 ? axis - 1 : axis);
        return;
    }
    if (t == "Eltwise")
    {
        const kite_caffe::EltwiseParameter& p = l.eltwise_param();
        Layer& k = add(l, "Eltwise");
        k.params.set(0, (int)p.operation());
        if (p.coeff_size() > 0)
        {
            if (p.coeff_size() != l.bottom_size())
                fail(l, "needs one coeff per bottom");
            k.params.set_floats(1, std::vector<float>(p.coeff().begin(), p.coeff().end()));
        }
        return;
    }
    if (t == "Flatten")
    {
        const kite_caffe::FlattenParameter& p = l.flatten_param();
        if (p.axis() != 1 || p.end_axis() != -1)
            fail(l, "only axis 1 to the end is supported");
        add(l, "Flatten");
        return;
    }
    if (t == "Normalize")
    {
        const kite_caffe::NormalizeParameter& p = l.norm_param();
        std::vector<float> s = blob(l, 0, -1);
        if (p.channel_shared() && s.size() != 1)
            fail(l, "channel_shared needs one scale");
        Layer& k = add(l, "Normalize");
        k.params.set(0, p.across_spatial() ? 1 : 0);
        k.params.set(1, p.channel_shared() ? 1 : 0);
        k.params.set(2, p.eps());
        k.params.set(3, (int)s.size());
        k.params.set(4, 1);
        k.params.set(9, 0);
        k.weights.push_back(Weight(std::move(s), false));
        return;
    }
    if (t == "MVN")
    {
        const kite_caffe::MVNParameter& p = l.mvn_param();
        Layer& k = add(l, "MVN");
        k.params.set(0, p.normalize_variance() ? 1 : 0);
        k.params.set(1, p.across_channels() ? 1 : 0);
        k.params.set(2, p.eps());
        return;
    }
    if (t == "ArgMax")
    {
        const kite_caffe::ArgMaxParameter& p = l.argmax_param();
        if (p.has_axis())
            fail(l, "argmax along one axis is not supported (only over all)");
        Layer& k = add(l, "ArgMax");
        k.params.set(0, p.out_max_val() ? 1 : 0);
        k.params.set(1, (int)p.top_k());
        return;
    }
    if (t == "Interp")
    {
        // bilinear with corners aligned, to a fixed size (zoom/shrink factors
        // depend on the input size, which is not known here)
        const kite_caffe::InterpParameter& p = l.interp_param();
        if (p.height() <= 0 || p.width() <= 0 || p.pad_beg() != 0 || p.pad_end() != 0 || l.bottom_size() != 1)
            fail(l, "only a fixed output height/width without pads is supported");
        Layer& k = add(l, "Interp");
        k.params.set(0, 2);
        k.params.set(3, p.height());
        k.params.set(4, p.width());
        k.params.set(6, 1);
        return;
    }
    if (t == "ShuffleChannel")
    {
        add(l, "ShuffleChannel").params.set(0, (int)l.shuffle_channel_param().group());
        return;
    }
    if (t == "Tile")
    {
        int axis = l.tile_param().axis();
        if (axis == 0)
            fail(l, "tiling the batch axis is not supported");
        Layer& k = add(l, "Tile");
        k.params.set(0, axis > 0 ? axis - 1 : axis);
        k.params.set(1, l.tile_param().tiles());
        return;
    }
    if (t == "Embed")
    {
        const kite_caffe::EmbedParameter& p = l.embed_param();
        int n = (int)p.num_output(), in = (int)p.input_dim();
        if (n <= 0 || in <= 0)
            fail(l, "num_output and input_dim must be positive");
        Layer& k = add(l, "Embed");
        k.params.set(0, n);
        k.params.set(1, in);
        k.params.set(2, p.bias_term() ? 1 : 0);
        k.params.set(3, n * in);
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
                throw Failure{"layer '" + l.name() + "' (" + l.type() + ") has no top"};
            cv.layer(l);
        }
    }
    catch (const Failure& f)
    {
        error = f.what;
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
} // namespace kite
