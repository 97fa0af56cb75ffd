#include "quantize.h"

#include "writer.h"

#include "layer/common/activation.h"
#include "layer/convolution.h"
#include "layer/innerproduct.h"
#include "layer/padding.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace kite {
namespace quantize {

// the layers' own parameter ids (layer/<type>.h), short names for this file
enum
{
    CONV_NUM_OUTPUT = Convolution::PARAM_NUM_OUTPUT,
    CONV_KERNEL_W = Convolution::PARAM_KERNEL_W,
    CONV_BIAS_TERM = Convolution::PARAM_BIAS_TERM,
    CONV_WEIGHT_DATA_SIZE = Convolution::PARAM_WEIGHT_DATA_SIZE,
    CONV_GROUP = Convolution::PARAM_GROUP,
    CONV_PAD_LEFT = Convolution::PARAM_PAD_LEFT,
    CONV_INT8_SCALE_TERM = Convolution::PARAM_INT8_SCALE_TERM,
    CONV_ACTIVATION_TYPE = Convolution::PARAM_ACTIVATION_TYPE, // same ids for InnerProduct
    CONV_ACTIVATION_PARAMS = Convolution::PARAM_ACTIVATION_PARAMS,
    CONV_KERNEL_H = Convolution::PARAM_KERNEL_H,
    CONV_PAD_TOP = Convolution::PARAM_PAD_TOP,
    CONV_PAD_RIGHT = Convolution::PARAM_PAD_RIGHT,
    CONV_PAD_BOTTOM = Convolution::PARAM_PAD_BOTTOM,
    CONV_PAD_VALUE = Convolution::PARAM_PAD_VALUE,
    CONV_DYNAMIC_WEIGHT = Convolution::PARAM_DYNAMIC_WEIGHT,
    IP_NUM_OUTPUT = InnerProduct::PARAM_NUM_OUTPUT,
    IP_BIAS_TERM = InnerProduct::PARAM_BIAS_TERM,
    IP_WEIGHT_DATA_SIZE = InnerProduct::PARAM_WEIGHT_DATA_SIZE,
    IP_INT8_SCALE_TERM = InnerProduct::PARAM_INT8_SCALE_TERM,
    ACT_RELU = ACTIVATION_RELU,
    ACT_CLIP = ACTIVATION_CLIP,
};
static_assert((int)CONV_ACTIVATION_TYPE == (int)InnerProduct::PARAM_ACTIVATION_TYPE
                  && (int)CONV_ACTIVATION_PARAMS == (int)InnerProduct::PARAM_ACTIVATION_PARAMS
                  && (int)CONV_NUM_OUTPUT == (int)IP_NUM_OUTPUT && (int)CONV_INT8_SCALE_TERM == (int)IP_INT8_SCALE_TERM,
              "quantize.cpp reads these ids from Convolution and InnerProduct alike");

static const char* WEIGHT_SUFFIX = "_param_0";

int read_table(const std::string& path, Table& t, std::string& error)
{
    std::ifstream f(path.c_str());
    if (!f)
    {
        error = "cannot open table '" + path + "': " + strerror(errno);
        return -1;
    }
    return read_table_stream(f, path, t, error);
}

int read_table_stream(std::istream& f, const std::string& path, Table& t, std::string& error)
{
    std::string line;
    int lineno = 0;
    while (std::getline(f, line))
    {
        lineno++;
        std::istringstream ss(line);
        std::string key;
        if (!(ss >> key) || key[0] == '#')
            continue;
        std::vector<float> vals;
        std::string tok;
        while (ss >> tok)
        {
            char* end = nullptr;
            errno = 0;
            float v = strtof(tok.c_str(), &end);
            if (*end != '\0' || errno != 0 || !std::isfinite(v) || v < 0.f)
            {
                error = path + ":" + std::to_string(lineno) + ": '" + tok + "' is not a non-negative scale";
                return -1;
            }
            vals.push_back(v);
        }
        if (vals.empty())
        {
            error = path + ":" + std::to_string(lineno) + ": '" + key + "' has no scales";
            return -1;
        }
        const size_t sl = strlen(WEIGHT_SUFFIX);
        if (key.size() > sl && key.compare(key.size() - sl, sl, WEIGHT_SUFFIX) == 0)
        {
            std::string name = key.substr(0, key.size() - sl);
            if (!t.weight.count(name) && !t.blob.count(name))
                t.order.push_back(name);
            t.weight[name] = vals;
        }
        else
        {
            if (vals.size() != 1)
            {
                // ncnn2table writes one input scale per layer
                error = path + ":" + std::to_string(lineno) + ": input scale of '" + key + "' has "
                        + std::to_string(vals.size()) + " values, expected 1";
                return -1;
            }
            if (!t.weight.count(key) && !t.blob.count(key))
                t.order.push_back(key);
            t.blob[key] = vals[0];
        }
    }
    if (t.weight.empty() && t.blob.empty())
    {
        error = "table '" + path + "' has no entries";
        return -1;
    }
    return 0;
}

int write_table(const std::string& path, const Table& t, std::string& error)
{
    // ncnn2table's layout: every weight line first, then every input line
    std::string text;
    char buf[64];
    for (const std::string& name : t.order)
    {
        auto it = t.weight.find(name);
        if (it == t.weight.end())
            continue;
        text += name + WEIGHT_SUFFIX;
        for (float v : it->second)
        {
            snprintf(buf, sizeof(buf), " %.9g", v);
            text += buf;
        }
        text += "\n";
    }
    for (const std::string& name : t.order)
    {
        auto it = t.blob.find(name);
        if (it == t.blob.end())
            continue;
        snprintf(buf, sizeof(buf), " %.9g", it->second);
        text += name + buf + "\n";
    }
    std::string tmp = path + ".tmp";
    FILE* fp = fopen(tmp.c_str(), "wb");
    if (!fp)
    {
        error = "cannot write '" + tmp + "'";
        return -1;
    }
    bool ok = fwrite(text.data(), 1, text.size(), fp) == text.size();
    ok = (fclose(fp) == 0) && ok;
    if (!ok || rename(tmp.c_str(), path.c_str()) != 0)
    {
        remove(tmp.c_str());
        error = "cannot write table '" + path + "'";
        return -1;
    }
    return 0;
}

bool is_quantizable(const convert::Layer& l)
{
    if (l.type == "Convolution" || l.type == "ConvolutionDepthWise")
        return l.params.get_int(CONV_INT8_SCALE_TERM, 0) == 0 && l.params.get_int(CONV_DYNAMIC_WEIGHT, 0) == 0
               && !l.weights.empty() && l.weights[0].storage != convert::Weight::INT8
               && l.params.get_int(CONV_NUM_OUTPUT, 0) > 0;
    if (l.type == "InnerProduct")
        return l.params.get_int(IP_INT8_SCALE_TERM, 0) == 0 && !l.weights.empty()
               && l.weights[0].storage != convert::Weight::INT8 && l.params.get_int(IP_NUM_OUTPUT, 0) > 0;
    return false;
}

// how many weight scales a layer has and how many weights each covers
static void scale_groups(const convert::Layer& l, int& nscale, size_t& per)
{
    const size_t n = l.weights[0].data.size();
    if (l.type == "ConvolutionDepthWise")
        nscale = std::max(1, l.params.get_int(CONV_GROUP, 1));
    else
        nscale = l.params.get_int(CONV_NUM_OUTPUT, 1); // same id for InnerProduct
    per = nscale > 0 ? n / nscale : 0;
}

std::vector<float> weight_scales(const convert::Layer& l)
{
    int nscale;
    size_t per;
    scale_groups(l, nscale, per);
    const std::vector<float>& w = l.weights[0].data;
    std::vector<float> s(nscale, 1.f);
    for (int i = 0; i < nscale; i++)
    {
        float m = 0.f;
        for (size_t k = 0; k < per; k++)
            m = std::max(m, std::fabs(w[i * per + k]));
        s[i] = m == 0.f ? 1.f : 127.f / m;
    }
    return s;
}

signed char float2int8(float v)
{
    if (!(v == v))
        return 0;
    if (v > 127.f)
        return 127;
    if (v < -127.f)
        return -127;
    int i = (int)std::round(v);
    if (i > 127)
        return 127;
    if (i < -127)
        return -127;
    return (signed char)i;
}

void BlobStat::add_absmax(const float* p, size_t n)
{
    for (size_t i = 0; i < n; i++)
    {
        if (!std::isfinite(p[i]))
            continue; // counted nowhere: a non-finite activation has no int8 value
        double a = std::fabs(p[i]);
        absmax = std::max(absmax, a);
        sum_abs += a;
    }
    count += (double)n;
}

void BlobStat::init_hist(int bins)
{
    hist.assign(bins, 0.0);
    hist_max = absmax;
}

void BlobStat::add_hist(const float* p, size_t n)
{
    if (hist.empty() || hist_max <= 0)
        return;
    const int bins = (int)hist.size();
    const double inv = bins / hist_max;
    for (size_t i = 0; i < n; i++)
    {
        if (p[i] == 0.f || !std::isfinite(p[i]))
            continue; // zeros (ReLU's) carry no information for the search
        int b = (int)(std::fabs(p[i]) * inv);
        hist[std::min(b, bins - 1)] += 1;
    }
}

bool parse_method(const std::string& s, Method& m)
{
    if (s == "kl")
        m = METHOD_KL;
    else if (s == "minmax")
        m = METHOD_MINMAX;
    else if (s == "percentile")
        m = METHOD_PERCENTILE;
    else if (s == "aciq")
        m = METHOD_ACIQ;
    else if (s == "mse")
        m = METHOD_MSE;
    else
        return false;
    return true;
}

const char* method_name(Method m)
{
    switch (m)
    {
    case METHOD_KL: return "kl";
    case METHOD_MINMAX: return "minmax";
    case METHOD_PERCENTILE: return "percentile";
    case METHOD_ACIQ: return "aciq";
    case METHOD_MSE: return "mse";
    }
    return "?";
}

int kl_threshold_bin(const std::vector<double>& hist, int target_bins)
{
    const int n = (int)hist.size();
    if (n <= target_bins)
        return n;
    // the tail beyond i is clipped into bin i-1 (P); Q spreads each of the
    // target_bins merged bins evenly over its non-empty source bins
    std::vector<double> suffix(n + 1, 0.0);
    for (int i = n - 1; i >= 0; i--)
        suffix[i] = suffix[i + 1] + hist[i];
    double best_kl = std::numeric_limits<double>::max();
    int best = n;
    std::vector<double> p, q;
    for (int i = target_bins; i <= n; i++)
    {
        p.assign(hist.begin(), hist.begin() + i);
        p[i - 1] += suffix[i];
        q.assign(i, 0.0);
        const double step = (double)i / target_bins;
        for (int j = 0; j < target_bins; j++)
        {
            int start = (int)std::floor(j * step);
            int end = j == target_bins - 1 ? i : (int)std::floor((j + 1) * step);
            double sum = 0;
            int nonzero = 0;
            for (int k = start; k < end; k++)
            {
                sum += hist[k]; // unclipped: the outliers are what quantization loses
                nonzero += hist[k] != 0;
            }
            if (nonzero == 0)
                continue;
            for (int k = start; k < end; k++)
                q[k] = hist[k] != 0 ? sum / nonzero : 0.0;
        }
        double ps = 0, qs = 0;
        for (int k = 0; k < i; k++)
        {
            ps += p[k];
            qs += q[k];
        }
        if (ps <= 0 || qs <= 0)
            continue;
        double kl = 0;
        for (int k = 0; k < i; k++)
        {
            if (p[k] <= 0)
                continue;
            double pk = p[k] / ps;
            double qk = q[k] / qs;
            kl += qk > 0 ? pk * std::log(pk / qk) : pk * 30.0; // empty Q where P has mass: heavy penalty
        }
        if (kl < best_kl)
        {
            best_kl = kl;
            best = i;
        }
    }
    return best;
}

double threshold_for(const BlobStat& st, Method method, double percentile)
{
    if (st.absmax <= 0)
        return 0;
    if (method == METHOD_MINMAX || st.hist.empty())
        return st.absmax;
    const int bins = (int)st.hist.size();
    const double width = st.hist_max / bins;
    if (method == METHOD_KL)
    {
        // a histogram with fewer filled bins than the 128 target bins (an
        // 8-bit image input, a few distinct values) gives KL nothing to
        // choose between: keep the whole range
        int filled = 0;
        for (double h : st.hist)
            filled += h > 0;
        if (filled < 128)
            return st.absmax;
        int b = kl_threshold_bin(st.hist);
        return std::min(st.absmax, (b + 0.5) * width);
    }
    if (method == METHOD_PERCENTILE)
    {
        double nonzero = 0;
        for (double h : st.hist)
            nonzero += h;
        double zeros = std::max(0.0, st.count - nonzero);
        double target = percentile * st.count;
        double cum = zeros;
        for (int b = 0; b < bins; b++)
        {
            cum += st.hist[b];
            if (cum >= target)
                return std::min(st.absmax, (b + 1) * width);
        }
        return st.absmax;
    }
    if (method == METHOD_MSE)
    {
        // expected squared error of clipping at the end of bin i: the values
        // beyond are clipped, those within are rounded (step^2 / 12 each)
        std::vector<double> tail_n(bins + 1, 0.0), tail_s(bins + 1, 0.0), tail_s2(bins + 1, 0.0);
        for (int b = bins - 1; b >= 0; b--)
        {
            double x = (b + 0.5) * width;
            tail_n[b] = tail_n[b + 1] + st.hist[b];
            tail_s[b] = tail_s[b + 1] + st.hist[b] * x;
            tail_s2[b] = tail_s2[b + 1] + st.hist[b] * x * x;
        }
        double best = std::numeric_limits<double>::max();
        int best_i = bins;
        for (int i = 1; i <= bins; i++)
        {
            double t = i * width;
            double step = t / 127.0;
            double inside = tail_n[0] - tail_n[i];
            double clip = tail_s2[i] - 2 * t * tail_s[i] + t * t * tail_n[i];
            double err = inside * step * step / 12.0 + clip;
            if (err < best)
            {
                best = err;
                best_i = i;
            }
        }
        return std::min(st.absmax, best_i * width);
    }
    // ACIQ, Laplace prior: b = E|x|, 8-bit optimal clip 9.89 b (Banner et al. 2019)
    double b = st.count > 0 ? st.sum_abs / st.count : 0;
    return std::min(st.absmax, 9.89 * b);
}

void Cosine::add(const float* a, const float* b, size_t n)
{
    for (size_t i = 0; i < n; i++)
    {
        dot += (double)a[i] * b[i];
        n1 += (double)a[i] * a[i];
        n2 += (double)b[i] * b[i];
    }
}

double Cosine::value() const
{
    if (n1 == 0 && n2 == 0)
        return 1.0;
    if (n1 == 0 || n2 == 0)
        return 0.0;
    return dot / std::sqrt(n1 * n2);
}

// ---- int8 model ----

static bool conv_like(const convert::Layer& l)
{
    return l.type == "Convolution" || l.type == "ConvolutionDepthWise";
}

static int quantize_layer(convert::Layer& l, const std::vector<float>& ws, float in_scale, const Int8Options& opt,
                          std::vector<std::string>& log, std::string& error)
{
    const bool ip = l.type == "InnerProduct";
    const int bias_id = ip ? IP_BIAS_TERM : CONV_BIAS_TERM;
    const int bias_term = l.params.get_int(bias_id, 0);
    if ((int)l.weights.size() != 1 + (bias_term ? 1 : 0))
    {
        error = "layer '" + l.name + "': expected " + std::to_string(1 + (bias_term ? 1 : 0)) + " weight buffers, found "
                + std::to_string(l.weights.size());
        return -1;
    }
    int nscale;
    size_t per;
    scale_groups(l, nscale, per);
    const std::vector<float>& w = l.weights[0].data;
    if (nscale <= 0 || per == 0 || (size_t)nscale * per != w.size())
    {
        error = "layer '" + l.name + "': weight size " + std::to_string(w.size()) + " does not split into "
                + std::to_string(nscale) + " scale groups";
        return -1;
    }
    if ((int)ws.size() != nscale)
    {
        error = "layer '" + l.name + "': the table has " + std::to_string(ws.size()) + " weight scales, the layer needs "
                + std::to_string(nscale);
        return -1;
    }
    if (!(in_scale > 0.f))
    {
        error = "layer '" + l.name + "': input scale must be > 0";
        return -1;
    }
    for (float s : ws)
        if (!(s > 0.f))
        {
            error = "layer '" + l.name + "': weight scales must be > 0";
            return -1;
        }

    convert::Weight w8;
    w8.tagged = true;
    w8.storage = convert::Weight::INT8;
    w8.i8.resize(w.size());
    std::vector<float> err(w.size()); // dequantized - original
    auto pre = opt.weight_int8.find(l.name);
    const signed char* given = pre != opt.weight_int8.end() && pre->second.size() == w.size() ? pre->second.data() : nullptr;
    for (int g = 0; g < nscale; g++)
        for (size_t k = 0; k < per; k++)
        {
            size_t i = g * per + k;
            signed char q = given ? given[i] : float2int8(w[i] * ws[g]);
            w8.i8[i] = q;
            err[i] = q / ws[g] - w[i];
        }

    // bias correction: E[(Wq - W) x] = (Wq - W) E[x], removed from the bias
    auto mit = opt.input_mean.find(l.name);
    if (mit != opt.input_mean.end())
    {
        const std::vector<double>& mean = mit->second;
        const int num_output = l.params.get_int(CONV_NUM_OUTPUT, 0);
        std::vector<double> delta(num_output, 0.0);
        bool ok = true;
        if (ip)
        {
            const size_t K = w.size() / num_output;
            ok = mean.size() == K;
            for (int o = 0; ok && o < num_output; o++)
                for (size_t k = 0; k < K; k++)
                    delta[o] += err[o * K + k] * mean[k];
        }
        else
        {
            const int kw = l.params.get_int(CONV_KERNEL_W, 0);
            const int maxk = kw * l.params.get_int(CONV_KERNEL_H, kw);
            const int group = l.type == "ConvolutionDepthWise" ? std::max(1, l.params.get_int(CONV_GROUP, 1)) : 1;
            const int outg = num_output / group;
            const int ing = maxk > 0 && num_output > 0 ? (int)(w.size() / maxk / outg / group) : 0;
            ok = maxk > 0 && (size_t)group * outg * ing * maxk == w.size() && mean.size() == (size_t)group * ing;
            for (int g = 0; ok && g < group; g++)
                for (int o = 0; o < outg; o++)
                    for (int i = 0; i < ing; i++)
                        for (int k = 0; k < maxk; k++)
                            delta[g * outg + o] += err[(((size_t)g * outg + o) * ing + i) * maxk + k] * mean[g * ing + i];
        }
        if (!ok)
            log.push_back("bias correction skipped for '" + l.name + "': input mean size does not match the weights");
        else
        {
            double maxd = 0;
            for (double d : delta)
                maxd = std::max(maxd, std::fabs(d));
            if (!bias_term)
            {
                l.weights.push_back(convert::Weight(std::vector<float>(num_output, 0.f), false));
                l.params.set(bias_id, 1);
            }
            std::vector<float>& b = l.weights[1].data;
            for (int o = 0; o < num_output; o++)
                b[o] = (float)(b[o] - delta[o]);
            char buf[64];
            snprintf(buf, sizeof(buf), "%.3g", maxd);
            log.push_back("bias_correct " + l.name + " max |delta| " + buf);
        }
    }

    // measured shift of the layer's output in the whole int8 net (for a layer with an
    // activation the shift after it, removed before it: an approximation that pays
    // on EfficientNet-Lite0's ReLU6 layers, tools/quantize/README.md)
    auto sit = opt.output_shift.find(l.name);
    const int nout = l.params.get_int(CONV_NUM_OUTPUT, 0);
    if (sit != opt.output_shift.end() && (int)sit->second.size() == nout)
    {
        if ((int)l.weights.size() < 2)
        {
            l.weights.push_back(convert::Weight(std::vector<float>(nout, 0.f), false));
            l.params.set(bias_id, 1);
        }
        std::vector<float>& b = l.weights[1].data;
        for (int o = 0; o < nout; o++)
            b[o] = (float)(b[o] - sit->second[o]);
        log.push_back("output_shift " + l.name);
    }

    l.weights[0] = w8;
    l.weights.push_back(convert::Weight(ws, false));
    l.weights.push_back(convert::Weight(std::vector<float>(1, in_scale), false));
    l.params.set(CONV_INT8_SCALE_TERM, l.type == "ConvolutionDepthWise" ? 1 : 2); // same id for InnerProduct
    log.push_back("quantize " + l.type + " " + l.name);
    return 0;
}

int fold_padding(convert::Graph& g, std::vector<std::string>& log)
{
    std::vector<bool> dead(g.layers.size(), false);
    int n = 0;
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        const convert::Layer& p = g.layers[i];
        if (p.type != "Padding" || p.bottoms.size() != 1 || p.tops.size() != 1 || g.consumer_count(p.tops[0]) != 1)
            continue;
        const convert::ParamSet& pp = p.params;
        // a constant zero padding of height and width only (Convolution pads with zeros:
        // CONV_PAD_VALUE 0); SAME (-233/-234) on the convolution is not folded into
        const int top = pp.get_int(Padding::PARAM_TOP, 0), bottom = pp.get_int(Padding::PARAM_BOTTOM, 0);
        const int left = pp.get_int(Padding::PARAM_LEFT, 0), right = pp.get_int(Padding::PARAM_RIGHT, 0);
        if (pp.get_int(Padding::PARAM_TYPE, 0) != 0 || pp.get_float(Padding::PARAM_VALUE, 0.f) != 0.f
            || pp.get_int(Padding::PARAM_PER_CHANNEL_PAD_DATA_SIZE, 0) != 0 || pp.get_int(Padding::PARAM_FRONT, 0) != 0
            || pp.get_int(Padding::PARAM_BEHIND, 0) != 0 || top < 0 || bottom < 0 || left < 0 || right < 0)
            continue;
        for (size_t j = i + 1; j < g.layers.size(); j++)
        {
            convert::Layer& c = g.layers[j];
            if (std::find(c.bottoms.begin(), c.bottoms.end(), p.tops[0]) == c.bottoms.end())
                continue;
            if (conv_like(c) && c.bottoms.size() == 1 && is_quantizable(c) && c.params.get_float(CONV_PAD_VALUE, 0.f) == 0.f)
            {
                const int cl = c.params.get_int(CONV_PAD_LEFT, 0);
                const int ct = c.params.get_int(CONV_PAD_TOP, cl), cr = c.params.get_int(CONV_PAD_RIGHT, cl);
                const int cb = c.params.get_int(CONV_PAD_BOTTOM, ct);
                if (cl >= 0 && ct >= 0 && cr >= 0 && cb >= 0)
                {
                    c.params.set(CONV_PAD_LEFT, cl + left);
                    c.params.set(CONV_PAD_RIGHT, cr + right);
                    c.params.set(CONV_PAD_TOP, ct + top);
                    c.params.set(CONV_PAD_BOTTOM, cb + bottom);
                    c.bottoms[0] = p.bottoms[0];
                    dead[i] = true;
                    n++;
                    log.push_back("fold_padding " + p.name + " " + c.name);
                }
            }
            break;
        }
    }
    if (n)
        g.erase_layers(dead);
    return n;
}

// Activation centring. A layer C whose input is the non-negative output of a
// ReLU / clip(0, hi) layer P (read by C alone) sees values in [0, T] and uses
// only the int8 levels 0..127 of its symmetric input scale 127 / T. P's output
// is shifted by m = T / 2 instead: bias - m and clip(-m, hi - m), exact in fp32,
// and C takes the shift back through its bias, b + sum(W_q) m. C's input then
// spans [-T/2, T/2] and its scale doubles: one more bit for the same range.
// That is exact when every tap of C reads a shifted value: C reads no padding
// (a 1x1 convolution, pads 0, an InnerProduct), or (center 2) C's padding
// becomes an fp32 Padding layer in front of it that pads with pad_value - m
// (int8 -127 after C's quantization). ncnn's int8 convolutions pad the int8
// input with (signed char)pad_value, which would be exact too, but ncnn's x86
// int8 Padding of packed (elempack 8) blobs sign-extends a negative value into
// the other lanes (-127 pads lane 0 with -127, lanes 1..7 with -1), so the pad
// value stays on fp32 data. The files stay ncnn2int8's form (bias, clip
// activation, scales, Padding), so ncnn runs them with the same arithmetic.
static int center_activations(convert::Graph& g, Table& t, Int8Options& opt, std::vector<std::string>& log,
                              std::map<std::string, float>* offsets)
{
    int n = 0;
    struct PadInsert
    {
        size_t before; // index of the reader
        convert::Layer pad;
    };
    std::vector<PadInsert> inserts;
    for (size_t ci = 0; ci < g.layers.size(); ci++)
    {
        convert::Layer& c = g.layers[ci];
        if (!is_quantizable(c) || c.bottoms.size() != 1 || opt.keep_fp32.count(c.name) || !t.blob.count(c.name)
            || !t.weight.count(c.name) || g.consumer_count(c.bottoms[0]) != 1)
            continue;
        int pads[4] = {0, 0, 0, 0}; // left right top bottom
        if (c.type != "InnerProduct")
        {
            pads[0] = c.params.get_int(CONV_PAD_LEFT, 0);
            pads[2] = c.params.get_int(CONV_PAD_TOP, pads[0]);
            pads[1] = c.params.get_int(CONV_PAD_RIGHT, pads[0]);
            pads[3] = c.params.get_int(CONV_PAD_BOTTOM, pads[2]);
        }
        const bool padded = pads[0] != 0 || pads[1] != 0 || pads[2] != 0 || pads[3] != 0;
        // SAME padding (-233 / -234) depends on the input size: not made explicit
        if (padded && (opt.center < 2 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 || pads[3] < 0))
            continue;
        const int pi = g.producer(c.bottoms[0]);
        if (pi < 0)
            continue;
        convert::Layer& p = g.layers[pi];
        if (p.tops.size() != 1 || !(p.type == "Convolution" || p.type == "ConvolutionDepthWise" || p.type == "InnerProduct")
            || p.weights.empty() || p.weights[0].storage == convert::Weight::INT8 || p.params.get_int(CONV_INT8_SCALE_TERM, 0) != 0)
            continue;
        const int act = p.params.get_int(CONV_ACTIVATION_TYPE, 0);
        float hi;
        if (act == ACT_RELU && p.params.get_floats(CONV_ACTIVATION_PARAMS).empty())
            hi = std::numeric_limits<float>::max();
        else if (act == ACT_CLIP)
        {
            std::vector<float> ap = p.params.get_floats(CONV_ACTIVATION_PARAMS);
            if (ap.size() != 2 || ap[0] != 0.f || !(ap[1] > 0.f))
                continue;
            hi = ap[1];
        }
        else
            continue;
        const float s = t.blob[c.name];
        const std::vector<float>& ws = t.weight[c.name];
        int nscale;
        size_t per;
        scale_groups(c, nscale, per);
        const std::vector<float>& w = c.weights[0].data;
        const int cout = c.params.get_int(CONV_NUM_OUTPUT, 0); // same id for InnerProduct
        if (!(s > 0.f) || nscale <= 0 || per == 0 || (int)ws.size() != nscale || (size_t)nscale * per != w.size() || cout <= 0
            || w.size() % cout != 0)
            continue;
        const int p_out = p.params.get_int(CONV_NUM_OUTPUT, 0);
        const int p_bias_id = p.type == "InnerProduct" ? IP_BIAS_TERM : CONV_BIAS_TERM;
        const bool p_bias = p.params.get_int(p_bias_id, 0) != 0;
        if (p_out <= 0 || (int)p.weights.size() != 1 + (p_bias ? 1 : 0) || (p_bias && (int)p.weights[1].data.size() != p_out))
            continue;
        const int c_bias_id = c.type == "InnerProduct" ? IP_BIAS_TERM : CONV_BIAS_TERM;
        const bool c_bias = c.params.get_int(c_bias_id, 0) != 0;
        if ((int)c.weights.size() != 1 + (c_bias ? 1 : 0) || (c_bias && (int)c.weights[1].data.size() != cout))
            continue;

        const float T = 127.f / s;
        const float m = T * 0.5f;
        // P: output - m
        if (!p_bias)
        {
            p.weights.push_back(convert::Weight(std::vector<float>(p_out, 0.f), false));
            p.params.set(p_bias_id, 1);
        }
        for (float& b : p.weights[1].data)
            b -= m;
        p.params.set(CONV_ACTIVATION_TYPE, (int)ACT_CLIP);
        // a ReLU's open top becomes the reader's saturation point T - m: the int8 reader
        // clamps there anyway, and a finite bound keeps the requantize arithmetic of
        // either engine in range
        const float top = hi == std::numeric_limits<float>::max() ? T - m : hi - m;
        p.params.set_floats(CONV_ACTIVATION_PARAMS, std::vector<float>{-m, top});
        // C: + sum over its inputs of the weights it will use (int8, dequantized) times m
        const size_t L = w.size() / cout;
        std::vector<double> add(cout, 0.0);
        auto pre = opt.weight_int8.find(c.name);
        const signed char* given = pre != opt.weight_int8.end() && pre->second.size() == w.size() ? pre->second.data() : nullptr;
        for (size_t i = 0; i < w.size(); i++)
        {
            const float sc = ws[i / per];
            add[i / L] += (double)(given ? given[i] : float2int8(w[i] * sc)) / sc * m;
        }
        if (!c_bias)
        {
            c.weights.push_back(convert::Weight(std::vector<float>(cout, 0.f), false));
            c.params.set(c_bias_id, 1);
        }
        for (int o = 0; o < cout; o++)
            c.weights[1].data[o] = (float)(c.weights[1].data[o] + add[o]);
        t.blob[c.name] = 127.f / (T - m);
        // bias correction keeps C's unshifted input mean: the shift is taken back
        // with the int8 weights, so C still computes W_q x + b and its error is (W_q - W) E[x]
        if (offsets)
            (*offsets)[c.bottoms[0]] = m;
        char buf[64];
        snprintf(buf, sizeof(buf), "%.4g", m);
        std::string what = "center " + p.name + " -> " + c.name + " offset " + buf;
        if (padded)
        {
            // C's padding moves into an fp32 Padding that pads with the shifted value
            PadInsert ins;
            ins.before = ci;
            convert::Layer& pad = ins.pad;
            pad.type = "Padding";
            pad.bottoms = c.bottoms;
            pad.params.set(Padding::PARAM_TOP, pads[2]);
            pad.params.set(Padding::PARAM_BOTTOM, pads[3]);
            pad.params.set(Padding::PARAM_LEFT, pads[0]);
            pad.params.set(Padding::PARAM_RIGHT, pads[1]);
            pad.params.set(Padding::PARAM_TYPE, 0);
            pad.params.set(Padding::PARAM_VALUE, c.params.get_float(CONV_PAD_VALUE, 0.f) - m);
            c.params.set(CONV_PAD_LEFT, 0);
            c.params.set(CONV_PAD_RIGHT, 0);
            c.params.set(CONV_PAD_TOP, 0);
            c.params.set(CONV_PAD_BOTTOM, 0);
            c.params.erase(CONV_PAD_VALUE);
            inserts.push_back(ins);
            what += " (padding " + std::to_string(pads[0]) + " " + std::to_string(pads[1]) + " " + std::to_string(pads[2])
                    + " " + std::to_string(pads[3]) + " made explicit)";
        }
        log.push_back(what);
        n++;
    }
    // insert the Padding layers, last first so that the earlier indices stay valid
    for (size_t k = inserts.size(); k-- > 0;)
    {
        PadInsert& ins = inserts[k];
        convert::Layer& c = g.layers[ins.before];
        ins.pad.name = g.unique_layer_name(c.name + "_centre_pad");
        const std::string blob = g.unique_blob_name(c.bottoms[0] + "_centre_pad");
        ins.pad.tops.push_back(blob);
        c.bottoms[0] = blob;
        if (offsets)
            (*offsets)[blob] = (*offsets)[ins.pad.bottoms[0]];
        g.layers.insert(g.layers.begin() + (std::ptrdiff_t)ins.before, ins.pad);
    }
    return n;
}

int make_int8(convert::Graph& g, const Table& table, const Int8Options& options, std::vector<std::string>& log,
              std::string& error, std::map<std::string, float>* offsets)
{
    if (options.fold_padding)
        fold_padding(g, log);
    Table t = table;
    Int8Options opt = options;
    if (offsets)
        offsets->clear();
    if (opt.center)
        center_activations(g, t, opt, log, offsets);
    std::vector<bool> q(g.layers.size(), false);
    for (size_t i = 0; i < g.layers.size(); i++)
    {
        convert::Layer& l = g.layers[i];
        if (!is_quantizable(l))
            continue;
        auto wi = t.weight.find(l.name);
        auto bi = t.blob.find(l.name);
        if (wi == t.weight.end() && bi == t.blob.end())
            continue;
        if (wi == t.weight.end() || bi == t.blob.end())
        {
            error = "table entry for layer '" + l.name + "' lacks its " + (wi == t.weight.end() ? "weight" : "input")
                    + " scales";
            return -1;
        }
        if (opt.keep_fp32.count(l.name))
        {
            log.push_back("keep fp32 " + l.name);
            continue;
        }
        if (quantize_layer(l, wi->second, bi->second, opt, log, error) != 0)
            return -1;
        q[i] = true;
    }
    if (opt.requantize)
    {
        for (size_t i = 0; i < g.layers.size(); i++)
        {
            convert::Layer& a = g.layers[i];
            if (!q[i] || !conv_like(a) || a.tops.size() != 1 || g.consumer_count(a.tops[0]) != 1)
                continue;
            for (size_t j = i + 1; j < g.layers.size(); j++)
            {
                const convert::Layer& b = g.layers[j];
                if (std::find(b.bottoms.begin(), b.bottoms.end(), a.tops[0]) == b.bottoms.end())
                    continue;
                if (q[j] && conv_like(b) && b.bottoms.size() == 1)
                {
                    a.params.set(CONV_INT8_SCALE_TERM, a.params.get_int(CONV_INT8_SCALE_TERM, 0) + 100);
                    a.weights.push_back(convert::Weight(std::vector<float>(1, t.blob.at(b.name)), false));
                    log.push_back("fuse_requantize " + a.name + " " + b.name);
                }
                break;
            }
        }
    }
    if (opt.fp16_rest)
        convert::use_fp16_storage(g);
    return 0;
}

} // namespace quantize
} // namespace kite
