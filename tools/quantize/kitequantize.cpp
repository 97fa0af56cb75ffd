// kitequantize: int8 post-training quantization of a kite/ncnn model.
//
//   kitequantize table MODEL.param MODEL.bin DATA TABLE [method=mse|kl|minmax|percentile|aciq]
//                [shape=[w,h,c]] [mean=[..]] [norm=[..]] [pixel=RGB|BGR|GRAY|RGBA|BGRA] [threads=N] [limit=N]
//       runs the fp32 model on DATA (a folder of images or .npy tensors, or a text file listing
//       them), collects the input statistics of every Convolution / ConvolutionDepthWise /
//       InnerProduct and writes a calibration table in ncnn2table's format (method: quantize.h;
//       mse, the default, picks the threshold with the least expected squared error).
//   kitequantize int8 MODEL.param MODEL.bin TABLE OUT.param OUT.bin [fp16-rest] [requantize=0] [fold-padding=0]
//                [data=DATA [shape=..] [mean=..] [norm=..] [pixel=..] [limit=N]] [bias-correct=0|1] [shift-correct=0|1|2]
//                [keep-fp32=N|name,name,...] [keep-by=output|isolated] [center=0|1|2] [round=gptq|nearest]
//                [gptq-min=N] [report=FILE] [threads=N]
//       writes the int8 model (ncnn2int8's form). With data=: GPTQ weight rounding (gptq.cpp; round=nearest:
//       each weight to nearest), bias correction (on by default),
//       the per-layer cosine report (int8 vs fp32) and keep-fp32=N (the N layers that lose most).
//       A zero Padding read only by a quantized convolution is folded into its pads (fold-padding=0: not).
//       With data= the biases are corrected twice: for the weights' rounding (bias-correct=0: off) and,
//       layer after layer, for the mean shift each layer's output channels still have in the whole int8
//       net (shift-correct=2, the default; 1: only layers without activation; 0: off).
//   kitequantize report FP32.param FP32.bin INT8.param INT8.bin DATA [shape..mean..norm..pixel..limit..]
//       per-layer output cosine of an int8 model (kitequantize's or ncnn2int8's) against fp32;
//       save=DIR writes the first output of every input as DIR/fp32.npy and DIR/int8.npy (N x K).
//
// Progress goes to stderr; exit status 0, 1 at run time, 2 for a wrong command line
// (tools/common/args.h; one line naming the problem).

#include "calib_data.h"
#include "quantize.h"

#include "log.h"
#include "net.h"
#include "reader.h"
#include "writer.h"

#include "layer/common/activation.h"
#include "layer/convolution.h"
#include "layer/innerproduct.h"

#include "common/args.h"
#include "common/npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;
using namespace kite::quantize;

// progress on stderr: about every 10 percent and at the end
static void progress(const char* what, size_t i, size_t n)
{
    size_t step = n >= 10 ? n / 10 : 1;
    if ((i + 1) % step == 0 || i + 1 == n)
        fprintf(stderr, "kitequantize: %s %zu/%zu\n", what, i + 1, n);
}

static const tools::ToolInfo kInfo = {
    "kitequantize",
    "table MODEL.param MODEL.bin DATA TABLE [key=value]...\n"
    "int8 MODEL.param MODEL.bin TABLE OUT.param OUT.bin [key=value]...\n"
    "report FP32.param FP32.bin INT8.param INT8.bin DATA [key=value]...",
    "int8 post-training quantization of a kite/ncnn model: calibration table, int8 model, per-layer report.",
    {{"table", "run the fp32 model on DATA and write a calibration table (ncnn2table's format)"},
     {"int8", "write the int8 model from a table (ncnn2int8's form), optionally bias-corrected with data="},
     {"report", "per-layer output cosine of an int8 model against the fp32 one"},
     {"DATA", "a folder of images or .npy tensors, or a text file listing them"},
     {"COMMAND --help", "the arguments of one command"}},
    "Progress goes to stderr."};

static const tools::ToolInfo kTableInfo = {
    "kitequantize",
    "table MODEL.param MODEL.bin DATA TABLE [method=..] [shape=..] [mean=..] [norm=..] [pixel=..] [threads=N] [limit=N]",
    "Run the fp32 model on DATA, collect the inputs of every Convolution / ConvolutionDepthWise / InnerProduct and "
    "write a calibration table.",
    {{"MODEL.param MODEL.bin", "the fp32 model"},
     {"DATA", "a folder of images or .npy tensors, or a text file listing them"},
     {"TABLE", "the calibration table to write (ncnn2table's format)"},
     {"method=mse|kl|minmax|percentile|aciq", "how each threshold is chosen (default mse: least expected squared error)"},
     {"shape=[w,h,c]", "resize images to this shape"},
     {"mean=[..] norm=[..]", "per-channel (x - mean) * norm of images"},
     {"pixel=RGB|BGR|GRAY|RGBA|BGRA", "the channel order the model expects"},
     {"limit=N", "use at most N inputs of DATA"},
     {"threads=N", "CPU threads"}},
    nullptr};

static const tools::ToolInfo kInt8Info = {
    "kitequantize",
    "int8 MODEL.param MODEL.bin TABLE OUT.param OUT.bin [fp16-rest] [requantize=0] [fold-padding=0] [center=0|1|2] "
    "[data=DATA [shape=..] [mean=..] [norm=..] [pixel=..] [limit=N]] [bias-correct=0|1] [shift-correct=0|1|2] "
    "[keep-fp32=N|name,name,...] [keep-by=output|isolated] [round=gptq|nearest] [gptq-min=N] [report=FILE] [threads=N]",
    "Write the int8 model of MODEL with the scales of TABLE (ncnn2int8's form).",
    {{"MODEL.param MODEL.bin", "the fp32 model"},
     {"TABLE", "the calibration table (kitequantize table's or ncnn2table's)"},
     {"OUT.param OUT.bin", "the int8 model to write"},
     {"fp16-rest", "store the weights of the layers left fp32 as fp16"},
     {"requantize=0", "do not fuse requantization into int8 convolutions"},
     {"fold-padding=0", "do not fold a zero Padding into the convolution that reads it"},
     {"center=0|1|2", "centre the non-negative inputs (ReLU/ReLU6 outputs) of int8 layers on zero: 1 readers "
                      "without padding (default), 2 every reader (a padded one reads an fp32 Padding with the "
                      "shifted pad value: more accurate, but that pair is not requantize-fused: slower), 0 off"},
     {"data=DATA", "calibration inputs: bias correction, the per-layer cosine report, keep-fp32=N"},
     {"shape= mean= norm= pixel= limit=", "how DATA is read, as for table"},
     {"bias-correct=0|1", "correct the biases for the weights' rounding (default: 1 with data=)"},
     {"shift-correct=0|1|2", "correct each layer's output mean shift: 2 every layer (default), 1 without activation, 0 off"},
     {"keep-fp32=N|name,...", "keep these layers fp32, or the N that lose most (needs data=)"},
     {"keep-by=output|isolated", "how keep-fp32=N ranks layers: the net's output cosine with only that layer fp32 "
                                 "(default), or the layer's own cosine with the fp32 input"},
     {"round=gptq|nearest", "how weights become int8: gptq (default with data=) rounds each layer's weights one "
                            "after the other, compensating each rounding error on the rest for the calibration "
                            "inputs; nearest rounds each weight alone"},
     {"gptq-min=N", "a layer whose calibration data has fewer than N input patches per weight of one output "
                    "rounds to nearest (default 4: fewer would fit the calibration set)"},
     {"report=FILE", "also write the per-layer report to FILE"},
     {"threads=N", "CPU threads"}},
    nullptr};

static const tools::ToolInfo kReportInfo = {
    "kitequantize",
    "report FP32.param FP32.bin INT8.param INT8.bin DATA [shape=..] [mean=..] [norm=..] [pixel=..] [limit=N] "
    "[threads=N] [report=FILE] [save=DIR]",
    "Per-layer output cosine of an int8 model (kitequantize's or ncnn2int8's) against the fp32 one, on stdout.",
    {{"FP32.param FP32.bin", "the fp32 model"},
     {"INT8.param INT8.bin", "its int8 model"},
     {"DATA", "the inputs, read as for table (shape= mean= norm= pixel= limit=)"},
     {"report=FILE", "also write the report to FILE"},
     {"save=DIR", "write the first output of every input as DIR/fp32.npy and DIR/int8.npy (N x K)"},
     {"threads=N", "CPU threads"}},
    nullptr};

// a failure at run time: one line, exit 1
static int fail(const std::string& msg)
{
    return tools::failure(kInfo, msg);
}

// a wrong command line: one line with the --help hint, exit 2
static int usage_fail(const std::string& msg)
{
    return tools::usage_error(kInfo, msg);
}

// common key=value options
struct Common
{
    DataOptions data;
    std::string data_path;
    int threads = 0;
    Method method = METHOD_MSE;
    bool fp16_rest = false;
    bool requantize = true;
    bool fold_padding = true;
    int center = 1;
    bool keep_by_output = true; // keep-fp32=N ranks layers by the output cosine with the layer fp32
    int shift_correct = 2; // with data: 0 off, 1 layers without activation, 2 every quantized layer
    int bias_correct = -1; // -1: on when data is given
    int gptq = -1;         // -1: on when data is given (round=gptq|nearest)
    int gptq_min = 4;      // gptq-min: calibration patches per weight a layer needs for gptq
    std::string keep;
    std::string report;
    std::string save;
};

static std::string parse_common(const std::vector<std::string>& args, Common& c)
{
    for (const std::string& a : args)
    {
        size_t eq = a.find('=');
        std::string k = eq == std::string::npos ? a : a.substr(0, eq);
        std::string v = eq == std::string::npos ? "" : a.substr(eq + 1);
        long long n = 0;
        if (a == "fp16-rest")
            c.fp16_rest = true;
        else if (k == "method")
        {
            if (!parse_method(v, c.method))
                return "method must be kl, minmax, percentile, aciq or mse, got '" + v + "'";
        }
        else if (k == "shape")
        {
            if (!tools::parse_shape(v, c.data.shape) || c.data.shape.size() < 2)
                return "shape must be [w,h] or [w,h,c], got '" + v + "'";
        }
        else if (k == "mean")
        {
            if (!parse_floats(v, c.data.mean))
                return "mean must be a list of numbers, got '" + v + "'";
        }
        else if (k == "norm")
        {
            if (!parse_floats(v, c.data.norm))
                return "norm must be a list of numbers, got '" + v + "'";
        }
        else if (k == "pixel")
        {
            if (!valid_pixel(v))
                return "pixel must be RGB, BGR, GRAY, RGBA or BGRA, got '" + v + "'";
            c.data.pixel = v;
        }
        else if (k == "threads" || k == "limit" || k == "requantize" || k == "bias-correct" || k == "fold-padding" || k == "shift-correct"
                 || k == "center" || k == "gptq-min")
        {
            const bool upto2 = k == "shift-correct" || k == "center";
            if (!tools::parse_int_arg(v, n) || n < 0 || n > 100000 || (upto2 && n > 2))
                return k + " must be a non-negative integer" + (upto2 ? std::string(" <= 2") : "") + ", got '" + v + "'";
            if (k == "threads")
                c.threads = (int)n;
            else if (k == "limit")
                c.data.limit = (int)n;
            else if (k == "requantize")
                c.requantize = n != 0;
            else if (k == "fold-padding")
                c.fold_padding = n != 0;
            else if (k == "center")
                c.center = (int)n;
            else if (k == "gptq-min")
                c.gptq_min = (int)n;
            else if (k == "shift-correct")
                c.shift_correct = (int)n;
            else
                c.bias_correct = (int)(n != 0);
        }
        else if (k == "data")
            c.data_path = v;
        else if (k == "keep-fp32")
            c.keep = v;
        else if (k == "round")
        {
            if (v != "gptq" && v != "nearest")
                return "round must be gptq or nearest, got '" + v + "'";
            c.gptq = v == "gptq";
        }
        else if (k == "keep-by")
        {
            if (v != "output" && v != "isolated")
                return "keep-by must be output or isolated, got '" + v + "'";
            c.keep_by_output = v == "output";
        }
        else if (k == "report")
            c.report = v;
        else if (k == "save")
            c.save = v;
        else
            return "unknown argument '" + a + "'";
    }
    return "";
}

static std::string load_all(const std::string& path, const DataOptions& opt, std::vector<Mat>& inputs)
{
    std::vector<std::string> files;
    std::string e = list_data(path, files);
    if (!e.empty())
        return e;
    if (opt.limit > 0 && (int)files.size() > opt.limit)
        files.resize(opt.limit);
    for (size_t i = 0; i < files.size(); i++)
    {
        Mat m;
        e = load_input(files[i], opt, m);
        if (!e.empty())
            return e;
        inputs.push_back(m);
    }
    fprintf(stderr, "kitequantize: %zu inputs from %s\n", inputs.size(), path.c_str());
    return "";
}

static void set_net_options(Net& net, int threads)
{
    net.opt.use_fp16_storage = false;
    net.opt.use_fp16_arithmetic = false;
    net.opt.use_bf16_storage = false;
    net.opt.use_int8_inference = true;
    if (threads > 0)
        net.opt.num_threads = threads;
}

// A Net holding its own copy of the text and weights it was loaded from.
struct MemNet
{
    std::string text;
    std::vector<unsigned char> bin;
    Net net;
};

static std::string load_graph(const convert::Graph& g, int threads, MemNet& mn)
{
    mn.text = convert::param_text(g);
    mn.bin = convert::bin_bytes(g);
    set_net_options(mn.net, threads);
    if (mn.net.load_param_mem(mn.text.c_str()) != 0)
        return "the generated model's param does not load: " + std::string(last_error());
    if (mn.net.load_model(mn.bin.data(), mn.bin.size()) == 0)
        return "the generated model's weights do not load: " + std::string(last_error());
    return "";
}

static std::string input_blob(const Net& net)
{
    std::vector<std::string> in = net.input_names();
    return in.size() == 1 ? in[0] : "";
}

struct QLayer
{
    std::string name, type, bottom, top;
};

static std::vector<QLayer> quantizable_layers(const convert::Graph& g)
{
    std::vector<QLayer> out;
    for (const convert::Layer& l : g.layers)
        if (is_quantizable(l) && l.bottoms.size() == 1 && l.tops.size() == 1)
            out.push_back({l.name, l.type, l.bottoms[0], l.tops[0]});
    return out;
}

// run one input and hand every requested blob (fp32, flattened) to f
template<typename F>
static std::string run_blobs(const Net& net, const std::string& in_blob, const Mat& in, const std::vector<std::string>& blobs,
                             F f)
{
    Extractor ex = net.create_extractor();
    ex.set_light_mode(false);
    if (ex.input(in_blob.c_str(), in) != 0)
        return "input: " + std::string(last_error());
    for (const std::string& b : blobs)
    {
        Mat m;
        if (ex.extract(b.c_str(), m) != 0)
            return "extract '" + b + "': " + last_error();
        f(b, m);
    }
    return "";
}

// ---------------- table ----------------

static int cmd_table(int argc, char** argv)
{
    if (argc < 6)
        return usage_fail("table expects MODEL.param MODEL.bin DATA TABLE");
    const std::string param = argv[2], bin = argv[3], data = argv[4], table_path = argv[5];
    Common c;
    std::string e = parse_common(std::vector<std::string>(argv + 6, argv + argc), c);
    if (!e.empty())
        return usage_fail(e);

    convert::Graph g;
    if (convert::read_model(param, bin, g, e) != 0)
        return fail(e);
    std::vector<QLayer> ql = quantizable_layers(g);
    if (ql.empty())
        return fail("the model has no Convolution, ConvolutionDepthWise or InnerProduct layer to quantize");

    Net net;
    set_net_options(net, c.threads);
    if (net.load_param(param.c_str()) != 0 || net.load_model(bin.c_str()) != 0)
        return fail(std::string("loading the model: ") + last_error());
    std::string in_blob = input_blob(net);
    if (in_blob.empty())
        return fail("the model must have exactly one Input blob");

    std::vector<Mat> inputs;
    e = load_all(data, c.data, inputs);
    if (!e.empty())
        return fail(e);

    std::vector<std::string> blobs;
    for (const QLayer& q : ql)
        if (std::find(blobs.begin(), blobs.end(), q.bottom) == blobs.end())
            blobs.push_back(q.bottom);
    std::map<std::string, BlobStat> stats;
    const int passes = c.method == METHOD_MINMAX || c.method == METHOD_ACIQ ? 1 : 2;
    for (int pass = 0; pass < passes; pass++)
    {
        if (pass == 1)
            for (auto& kv : stats)
                kv.second.init_hist(2048);
        for (size_t i = 0; i < inputs.size(); i++)
        {
            progress(pass == 0 ? "absmax pass" : "histogram pass", i, inputs.size());
            e = run_blobs(net, in_blob, inputs[i], blobs, [&](const std::string& b, const Mat& m) {
                std::vector<float> v = flatten(m);
                if (pass == 0)
                    stats[b].add_absmax(v.data(), v.size());
                else
                    stats[b].add_hist(v.data(), v.size());
            });
            if (!e.empty())
                return fail(e);
        }
    }

    Table t;
    for (const QLayer& q : ql)
    {
        const convert::Layer& l = g.layers[g.producer(q.top)];
        const BlobStat& st = stats[q.bottom];
        double th = threshold_for(st, c.method);
        float s = th > 0 ? (float)(127.0 / th) : 1.f;
        t.order.push_back(q.name);
        t.weight[q.name] = weight_scales(l);
        t.blob[q.name] = s;
        fprintf(stderr, "kitequantize: %-32s absmax %-10.5g threshold %-10.5g scale %.6g\n", q.name.c_str(), st.absmax, th, s);
    }
    if (write_table(table_path, t, e) != 0)
        return fail(e);
    fprintf(stderr, "kitequantize: wrote %s (%zu layers, method %s, %zu inputs)\n", table_path.c_str(), ql.size(),
            method_name(c.method), inputs.size());
    return 0;
}

// ---------------- measurement (report and keep-fp32) ----------------

struct LayerCos
{
    std::string name, type;
    Cosine isolated, cumulative;
    Cosine output_if_fp32; // the net's output with every layer int8 but this one (keep-by=output)
    bool has_output_if_fp32 = false;
};

// int8 layers' top scale (fused requantize: the top blob holds int8 values)
static std::map<std::string, float> requant_top_scales(const convert::Graph& g)
{
    std::map<std::string, float> m;
    for (const convert::Layer& l : g.layers)
        if ((l.type == "Convolution" || l.type == "ConvolutionDepthWise") && l.params.get_int(Convolution::PARAM_INT8_SCALE_TERM, 0) > 100
            && !l.weights.empty() && !l.weights.back().data.empty() && l.tops.size() == 1)
            m[l.tops[0]] = l.weights.back().data[0];
    return m;
}

// Per int8 layer of `q8` (by name): cumulative cosine of its output in the
// whole int8 net, and (isolated=true) the cosine with the fp32 input fed to
// that layer alone. Output cosine over the nets' outputs too.
static std::string measure(const Net& n32, const convert::Graph& g8, const Net& n8, const std::vector<Mat>& inputs,
                           bool isolated, std::vector<LayerCos>& res, Cosine& out_cos,
                           const std::map<std::string, float>& offsets,
                           std::vector<float>* save32 = nullptr, std::vector<float>* save8 = nullptr)
{
    // a centred blob (make_int8's offsets) holds fp32 value - m in the int8 net
    auto offset_of = [&](const std::string& blob) {
        auto it = offsets.find(blob);
        return it == offsets.end() ? 0.f : it->second;
    };
    std::string in_blob = input_blob(n32);
    std::vector<QLayer> layers;
    for (const convert::Layer& l : g8.layers)
    {
        bool int8 = (l.type == "Convolution" || l.type == "ConvolutionDepthWise" || l.type == "InnerProduct")
                    && l.params.get_int(Convolution::PARAM_INT8_SCALE_TERM, 0) != 0; // same id for InnerProduct
        if (!int8 || l.bottoms.size() != 1 || l.tops.size() != 1 || n32.find_blob_index_by_name(l.tops[0].c_str()) < 0)
            continue;
        std::string bottom = l.bottoms[0];
        if (n32.find_blob_index_by_name(bottom.c_str()) < 0)
        {
            // a Padding the int8 model alone has (activation centring's): measured with it
            const int pi = g8.producer(bottom);
            if (pi >= 0 && g8.layers[pi].type == "Padding" && g8.layers[pi].bottoms.size() == 1)
                bottom = g8.layers[pi].bottoms[0];
        }
        if (n32.find_blob_index_by_name(bottom.c_str()) >= 0)
            layers.push_back({l.name, l.type, bottom, l.tops[0]});
    }
    std::map<std::string, float> topscale = requant_top_scales(g8);
    std::vector<std::string> outs = n32.output_names();
    res.assign(layers.size(), LayerCos());
    for (size_t i = 0; i < layers.size(); i++)
    {
        res[i].name = layers[i].name;
        res[i].type = layers[i].type;
    }
    std::vector<std::string> want;
    for (const QLayer& q : layers)
    {
        if (isolated)
            want.push_back(q.bottom);
        want.push_back(q.top);
    }
    for (const std::string& o : outs)
        want.push_back(o);
    for (size_t k = 0; k < inputs.size(); k++)
    {
        progress("measuring", k, inputs.size());
        std::map<std::string, Mat> f32;
        std::string e = run_blobs(n32, in_blob, inputs[k], want, [&](const std::string& b, const Mat& m) { f32[b] = m; });
        if (!e.empty())
            return e;
        std::vector<std::string> tops;
        for (const QLayer& q : layers)
            tops.push_back(q.top);
        for (const std::string& o : outs)
            tops.push_back(o);
        std::map<std::string, std::vector<float> > i8;
        e = run_blobs(n8, in_blob, inputs[k], tops, [&](const std::string& b, const Mat& m) { i8[b] = flatten(m); });
        if (!e.empty())
            return e;
        for (auto& kv : i8)
        {
            auto ts = topscale.find(kv.first);
            if (ts != topscale.end() && ts->second > 0)
                for (float& v : kv.second)
                    v /= ts->second;
            const float off = offset_of(kv.first);
            if (off != 0.f)
                for (float& v : kv.second)
                    v += off;
        }
        for (size_t i = 0; i < layers.size(); i++)
        {
            std::vector<float> a = flatten(f32[layers[i].top]);
            const std::vector<float>& b = i8[layers[i].top];
            if (a.size() == b.size())
                res[i].cumulative.add(a.data(), b.data(), a.size());
            if (isolated)
            {
                Extractor ex = n8.create_extractor();
                Mat m;
                Mat in = f32[layers[i].bottom];
                const float in_off = offset_of(layers[i].bottom);
                if (in_off != 0.f)
                {
                    in = in.clone();
                    for (int q = 0; q < in.c; q++)
                    {
                        float* p = in.channel(q);
                        for (size_t j = 0; j < (size_t)in.w * in.h * in.d * in.elempack; j++)
                            p[j] -= in_off;
                    }
                }
                if (ex.input(layers[i].bottom.c_str(), in) != 0
                    || ex.extract(layers[i].top.c_str(), m) != 0)
                    return "running layer '" + layers[i].name + "' alone: " + last_error();
                std::vector<float> v = flatten(m);
                auto ts = topscale.find(layers[i].top);
                if (ts != topscale.end() && ts->second > 0)
                    for (float& x : v)
                        x /= ts->second;
                const float out_off = offset_of(layers[i].top);
                if (out_off != 0.f)
                    for (float& x : v)
                        x += out_off;
                if (a.size() == v.size())
                    res[i].isolated.add(a.data(), v.data(), a.size());
            }
        }
        if (save32 && !outs.empty())
        {
            std::vector<float> a = flatten(f32[outs[0]]);
            save32->insert(save32->end(), a.begin(), a.end());
            save8->insert(save8->end(), i8[outs[0]].begin(), i8[outs[0]].end());
        }
        for (const std::string& o : outs)
        {
            std::vector<float> a = flatten(f32[o]);
            const std::vector<float>& b = i8[o];
            if (a.size() == b.size())
                out_cos.add(a.data(), b.data(), a.size());
        }
    }
    return "";
}

static std::string write_report(const std::string& path, const std::vector<LayerCos>& res, bool isolated,
                                const std::set<std::string>& kept)
{
    std::vector<size_t> idx(res.size());
    for (size_t i = 0; i < idx.size(); i++)
        idx[i] = i;
    const bool sens = isolated && !res.empty() && res[0].has_output_if_fp32;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        if (sens) // the layers that cost the output most first
            return res[a].output_if_fp32.value() > res[b].output_if_fp32.value();
        return isolated ? res[a].isolated.value() < res[b].isolated.value()
                        : res[a].cumulative.value() < res[b].cumulative.value();
    });
    std::string text = isolated ? "# layer\ttype\tisolated_cosine\tcumulative_cosine\tkept_fp32\toutput_cosine_if_fp32\n"
                                : "# layer\ttype\tcumulative_cosine\n";
    char buf[160];
    for (size_t i : idx)
    {
        if (isolated && sens)
            snprintf(buf, sizeof(buf), "\t%.6f\t%.6f\t%d\t%.6f\n", res[i].isolated.value(), res[i].cumulative.value(),
                     (int)kept.count(res[i].name), res[i].output_if_fp32.value());
        else if (isolated)
            snprintf(buf, sizeof(buf), "\t%.6f\t%.6f\t%d\t-\n", res[i].isolated.value(), res[i].cumulative.value(),
                     (int)kept.count(res[i].name));
        else
            snprintf(buf, sizeof(buf), "\t%.6f\n", res[i].cumulative.value());
        text += res[i].name + "\t" + res[i].type + buf;
    }
    printf("%s", text.c_str());
    if (!path.empty())
    {
        FILE* fp = fopen(path.c_str(), "wb");
        if (!fp || fwrite(text.data(), 1, text.size(), fp) != text.size())
        {
            if (fp)
                fclose(fp);
            return tools::file_error("cannot write report", path);
        }
        fclose(fp);
    }
    return "";
}

// ---------------- int8 ----------------

static int cmd_int8(int argc, char** argv)
{
    if (argc < 7)
        return usage_fail("int8 expects MODEL.param MODEL.bin TABLE OUT.param OUT.bin");
    const std::string param = argv[2], bin = argv[3], table_path = argv[4], out_param = argv[5], out_bin = argv[6];
    Common c;
    std::string e = parse_common(std::vector<std::string>(argv + 7, argv + argc), c);
    if (!e.empty())
        return usage_fail(e);
    const bool have_data = !c.data_path.empty();
    const bool bias_correct = c.bias_correct < 0 ? have_data : c.bias_correct == 1;
    if (bias_correct && !have_data)
        return usage_fail("bias-correct=1 needs data=DATA");

    convert::Graph g;
    if (convert::read_model(param, bin, g, e) != 0)
        return fail(e);
    Table t;
    if (read_table(table_path, t, e) != 0)
        return fail(e);
    for (const std::string& name : t.order)
    {
        bool found = false;
        for (const convert::Layer& l : g.layers)
            found = found || l.name == name;
        if (!found)
            fprintf(stderr, "kitequantize: warning: the table names layer '%s', which the model lacks\n", name.c_str());
    }

    Int8Options opt;
    opt.fp16_rest = c.fp16_rest;
    opt.requantize = c.requantize;
    opt.fold_padding = c.fold_padding;
    opt.center = c.center;
    long long keep_n = -1;
    if (!c.keep.empty() && !tools::parse_int_arg(c.keep, keep_n))
    {
        std::stringstream ss(c.keep);
        std::string n;
        while (std::getline(ss, n, ','))
            if (!n.empty())
            {
                bool found = false;
                for (const convert::Layer& l : g.layers)
                    found = found || l.name == n;
                if (!found)
                    return fail("keep-fp32 names layer '" + n + "', which the model lacks");
                opt.keep_fp32.insert(n);
            }
    }
    if (keep_n > 0 && !have_data)
        return usage_fail("keep-fp32=N needs data=DATA (the layers are chosen by measuring them)");

    std::vector<Mat> inputs;
    std::unique_ptr<Net> n32;
    if (have_data)
    {
        e = load_all(c.data_path, c.data, inputs);
        if (!e.empty())
            return fail(e);
        n32.reset(new Net);
        set_net_options(*n32, c.threads);
        if (n32->load_param(param.c_str()) != 0 || n32->load_model(bin.c_str()) != 0)
            return fail(std::string("loading the model: ") + last_error());
        if (input_blob(*n32).empty())
            return fail("the model must have exactly one Input blob");
    }

    if (bias_correct)
    {
        // mean of every quantized layer's input: per channel (convolutions), per element (InnerProduct)
        std::vector<QLayer> ql = quantizable_layers(g);
        std::map<std::string, std::vector<double> > sum;
        std::vector<std::string> blobs;
        for (const QLayer& q : ql)
            if (t.blob.count(q.name))
                blobs.push_back(q.bottom);
        std::map<std::string, Mat> last;
        for (size_t i = 0; i < inputs.size(); i++)
        {
            progress("input means", i, inputs.size());
            std::map<std::string, Mat> cur;
            e = run_blobs(*n32, input_blob(*n32), inputs[i], blobs, [&](const std::string& b, const Mat& m) { cur[b] = m; });
            if (!e.empty())
                return fail(e);
            for (const QLayer& q : ql)
            {
                if (!cur.count(q.bottom))
                    continue;
                const Mat& m = cur[q.bottom];
                std::vector<float> v = flatten(m);
                std::vector<double>& s = sum[q.name];
                if (q.type == "InnerProduct" || m.dims < 3)
                {
                    if (s.empty())
                        s.assign(v.size(), 0.0);
                    for (size_t k = 0; k < v.size() && k < s.size(); k++)
                        s[k] += v[k];
                }
                else
                {
                    const size_t plane = (size_t)m.w * m.h * m.d;
                    if (s.empty())
                        s.assign(m.c, 0.0);
                    for (int ch = 0; ch < m.c && ch < (int)s.size(); ch++)
                    {
                        double acc = 0;
                        for (size_t k = 0; k < plane; k++)
                            acc += v[ch * plane + k];
                        s[ch] += acc / plane;
                    }
                }
            }
        }
        for (auto& kv : sum)
        {
            for (double& x : kv.second)
                x /= (double)inputs.size();
            opt.input_mean[kv.first] = kv.second;
        }
    }

    const bool gptq = c.gptq < 0 ? have_data : c.gptq == 1;
    if (gptq && !have_data)
        return usage_fail("round=gptq needs data=DATA");
    if (gptq)
    {
        // the covariance of every quantized layer's input patches (fp32 net), then
        // GPTQ's int8 weights with the table's scales
        std::vector<QLayer> ql = quantizable_layers(g);
        std::map<std::string, InputMoments> mom;
        std::map<std::string, std::string> skipped;
        std::vector<std::string> blobs;
        for (const QLayer& q : ql)
            if (t.blob.count(q.name) && t.weight.count(q.name) && std::find(blobs.begin(), blobs.end(), q.bottom) == blobs.end())
                blobs.push_back(q.bottom);
        for (size_t i = 0; i < inputs.size(); i++)
        {
            progress("input covariance", i, inputs.size());
            std::map<std::string, Mat> cur;
            e = run_blobs(*n32, input_blob(*n32), inputs[i], blobs, [&](const std::string& b, const Mat& m) { cur[b] = m; });
            if (!e.empty())
                return fail(e);
            for (const QLayer& q : ql)
            {
                if (!cur.count(q.bottom) || skipped.count(q.name) || !t.weight.count(q.name))
                    continue;
                const Mat& m = cur[q.bottom];
                std::vector<float> v = flatten(m);
                const convert::Layer& l = g.layers[g.producer(q.top)];
                const bool flat = q.type == "InnerProduct" || m.dims < 3;
                std::string err;
                if (add_input_moments(l, v.data(), flat ? 1 : m.c, flat ? 1 : m.h * m.d, flat ? (int)v.size() : m.w, mom[q.name],
                                      err)
                    != 0)
                    skipped[q.name] = err;
            }
        }
        for (const QLayer& q : ql)
        {
            auto it = mom.find(q.name);
            if (it == mom.end())
                continue;
            if (skipped.count(q.name))
            {
                fprintf(stderr, "kitequantize: gptq skipped: %s\n", skipped[q.name].c_str());
                continue;
            }
            std::vector<signed char> w8;
            std::string err;
            bool applied = false;
            if (gptq_weights(g.layers[g.producer(q.top)], t.weight.at(q.name), it->second, w8, err, c.gptq_min, &applied) != 0)
                fprintf(stderr, "kitequantize: gptq skipped: %s\n", err.c_str());
            else if (applied)
                opt.weight_int8[q.name].swap(w8);
            else
                fprintf(stderr, "kitequantize: gptq: %s rounds to nearest (%.0f input patches for %d weights an output, "
                                "gptq-min=%d)\n", q.name.c_str(), it->second.n, it->second.K, c.gptq_min);
        }
        fprintf(stderr, "kitequantize: gptq rounding for %zu layers\n", opt.weight_int8.size());
    }

    std::vector<std::string> log;
    std::vector<LayerCos> res;
    std::map<std::string, float> offs; // blobs activation centring shifted (make_int8)
    if (have_data)
    {
        // measure every layer in int8 (unfused: each layer's output is fp32)
        convert::Graph gm = g;
        Int8Options mo = opt;
        mo.requantize = false;
        mo.fp16_rest = false;
        mo.keep_fp32.clear();
        if (make_int8(gm, t, mo, log, e, &offs) != 0)
            return fail(e);
        log.clear();
        MemNet mn;
        e = load_graph(gm, c.threads, mn);
        if (!e.empty())
            return fail(e);
        Cosine oc;
        e = measure(*n32, gm, mn.net, inputs, true, res, oc, offs);
        if (!e.empty())
            return fail(e);
        fprintf(stderr, "kitequantize: output cosine with every layer int8 (before shift correction): %.6f\n", oc.value());
        if (keep_n > 0 && c.keep_by_output)
        {
            // the sensitivity of the whole net to each layer: the output cosine with
            // every other layer int8 and this one fp32 (the error a layer causes
            // downstream, which its own cosine does not show)
            std::vector<std::string> outs = n32->output_names();
            std::vector<std::vector<std::vector<float> > > ref(inputs.size());
            for (size_t k = 0; k < inputs.size(); k++)
            {
                e = run_blobs(*n32, input_blob(*n32), inputs[k], outs,
                              [&](const std::string&, const Mat& m) { ref[k].push_back(flatten(m)); });
                if (!e.empty())
                    return fail(e);
            }
            for (size_t i = 0; i < res.size(); i++)
            {
                progress("sensitivity", i, res.size());
                convert::Graph gk = g;
                Int8Options ko = opt;
                ko.requantize = false;
                ko.fp16_rest = false;
                ko.keep_fp32.clear();
                ko.keep_fp32.insert(res[i].name);
                std::vector<std::string> klog;
                if (make_int8(gk, t, ko, klog, e) != 0)
                    return fail(e);
                MemNet mk;
                e = load_graph(gk, c.threads, mk);
                if (!e.empty())
                    return fail(e);
                for (size_t k = 0; k < inputs.size(); k++)
                {
                    size_t j = 0;
                    e = run_blobs(mk.net, input_blob(*n32), inputs[k], outs, [&](const std::string&, const Mat& m) {
                        std::vector<float> v = flatten(m);
                        if (j < ref[k].size() && v.size() == ref[k][j].size())
                            res[i].output_if_fp32.add(ref[k][j].data(), v.data(), v.size());
                        j++;
                    });
                    if (!e.empty())
                        return fail(e);
                }
                res[i].has_output_if_fp32 = true;
            }
        }
        if (keep_n > 0)
        {
            std::vector<size_t> idx(res.size());
            for (size_t i = 0; i < idx.size(); i++)
                idx[i] = i;
            std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
                if (c.keep_by_output)
                    return res[a].output_if_fp32.value() > res[b].output_if_fp32.value();
                return res[a].isolated.value() < res[b].isolated.value();
            });
            for (size_t i = 0; i < idx.size() && (long long)i < keep_n; i++)
                opt.keep_fp32.insert(res[idx[i]].name);
        }
    }

    if (bias_correct && c.shift_correct)
    {
        // the mean shift each linear int8 layer's output still has in the whole
        // int8 net (activation rounding, errors of the layers before), per
        // channel; one layer after the other, each measured with the earlier
        // ones corrected
        std::vector<std::string> tops, names;
        for (const convert::Layer& l : g.layers)
            if ((l.type == "Convolution" || l.type == "InnerProduct" || (c.shift_correct == 2 && l.type == "ConvolutionDepthWise"))
                && is_quantizable(l) && t.blob.count(l.name)
                && (c.shift_correct == 2 || l.params.get_int(Convolution::PARAM_ACTIVATION_TYPE, 0) == ACTIVATION_NONE) && l.tops.size() == 1)
            {
                tops.push_back(l.tops[0]);
                names.push_back(l.name);
            }
        std::vector<std::map<std::string, std::vector<float> > > ref(inputs.size());
        for (size_t i = 0; i < inputs.size(); i++)
        {
            e = run_blobs(*n32, input_blob(*n32), inputs[i], tops,
                          [&](const std::string& n, const Mat& m) { ref[i][n] = flatten(m); });
            if (!e.empty())
                return fail(e);
        }
        for (size_t k = 0; k < tops.size(); k++)
        {
            progress("output shift", k, tops.size());
            convert::Graph gm = g;
            Int8Options mo = opt;
            mo.requantize = false;
            mo.fp16_rest = false;
            // the final model's fp32 layers: the shifts are measured in the net they will correct
            if (make_int8(gm, t, mo, log, e, &offs) != 0)
                return fail(e);
            log.clear();
            MemNet mn;
            e = load_graph(gm, c.threads, mn);
            if (!e.empty())
                return fail(e);
            std::vector<double> d;
            for (size_t i = 0; i < inputs.size(); i++)
            {
                Mat mb;
                e = run_blobs(mn.net, input_blob(*n32), inputs[i], std::vector<std::string>(1, tops[k]),
                              [&](const std::string&, const Mat& m) { mb = m; });
                if (!e.empty())
                    return fail(e);
                std::vector<float> vb = flatten(mb);
                auto oit = offs.find(tops[k]);
                if (oit != offs.end())
                    for (float& v : vb)
                        v += oit->second;
                const std::vector<float>& va = ref[i][tops[k]];
                if (va.size() != vb.size() || va.empty())
                    continue;
                const int ch = mb.dims == 3 ? mb.c : (int)va.size();
                const size_t plane = va.size() / ch;
                if (d.empty())
                    d.assign(ch, 0.0);
                for (int q = 0; q < ch; q++)
                {
                    double acc = 0;
                    for (size_t j = 0; j < plane; j++)
                        acc += vb[q * plane + j] - va[q * plane + j];
                    d[q] += acc / plane / inputs.size();
                }
            }
            if (!d.empty())
                opt.output_shift[names[k]] = d;
        }
    }
    if (make_int8(g, t, opt, log, e, &offs) != 0)
        return fail(e);
    int nq = 0;
    for (const std::string& s : log)
    {
        fprintf(stderr, "kitequantize: %s\n", s.c_str());
        nq += s.compare(0, 9, "quantize ") == 0;
    }
    if (nq == 0)
        return fail("no layer of the model has entries in the table '" + table_path + "'");

    if (have_data)
    {
        e = write_report(c.report, res, true, opt.keep_fp32);
        if (!e.empty())
            return fail(e);
        MemNet mn;
        e = load_graph(g, c.threads, mn);
        if (!e.empty())
            return fail(e);
        std::vector<LayerCos> r2;
        Cosine oc;
        e = measure(*n32, g, mn.net, inputs, false, r2, oc, offs);
        if (!e.empty())
            return fail(e);
        fprintf(stderr, "kitequantize: output cosine of the written model: %.6f (%zu layers kept fp32)\n", oc.value(),
                opt.keep_fp32.size());
    }

    if (convert::write_files(g, out_param, out_bin, e) != 0)
        return fail(e);
    fprintf(stderr, "kitequantize: wrote %s %s (%d int8 layers)\n", out_param.c_str(), out_bin.c_str(), nq);
    return 0;
}

// ---------------- report ----------------

static int cmd_report(int argc, char** argv)
{
    if (argc < 7)
        return usage_fail("report expects FP32.param FP32.bin INT8.param INT8.bin DATA");
    Common c;
    std::string e = parse_common(std::vector<std::string>(argv + 7, argv + argc), c);
    if (!e.empty())
        return usage_fail(e);
    Net n32;
    set_net_options(n32, c.threads);
    if (n32.load_param(argv[2]) != 0 || n32.load_model(argv[3]) != 0)
        return fail(std::string("loading the fp32 model: ") + last_error());
    if (input_blob(n32).empty())
        return fail("the model must have exactly one Input blob");
    convert::Graph g8;
    if (convert::read_model(argv[4], argv[5], g8, e) != 0)
        return fail(e);
    Net n8;
    set_net_options(n8, c.threads);
    if (n8.load_param(argv[4]) != 0 || n8.load_model(argv[5]) != 0)
        return fail(std::string("loading the int8 model: ") + last_error());
    std::vector<Mat> inputs;
    e = load_all(argv[6], c.data, inputs);
    if (!e.empty())
        return fail(e);
    std::vector<LayerCos> res;
    Cosine oc;
    std::vector<float> s32, s8;
    // blobs kitequantize centred (int8 activation clip(lo < 0) where the fp32 layer of
    // the same name clips at 0): the int8 value + (-lo) is the fp32 value
    std::map<std::string, float> offs;
    {
        convert::Graph g32;
        if (convert::read_model(argv[2], argv[3], g32, e) != 0)
            return fail(e);
        std::map<std::string, const convert::Layer*> by_name;
        for (const convert::Layer& l : g32.layers)
            by_name[l.name] = &l;
        for (const convert::Layer& l : g8.layers)
        {
            auto it = by_name.find(l.name);
            if (it == by_name.end() || l.tops.size() != 1 || l.params.get_int(Convolution::PARAM_ACTIVATION_TYPE, 0) != ACTIVATION_CLIP)
                continue;
            const int a32 = it->second->params.get_int(Convolution::PARAM_ACTIVATION_TYPE, 0);
            const std::vector<float> p8 = l.params.get_floats(Convolution::PARAM_ACTIVATION_PARAMS);
            const std::vector<float> p32 = it->second->params.get_floats(Convolution::PARAM_ACTIVATION_PARAMS);
            const bool zero_floor = a32 == ACTIVATION_RELU ? p32.empty() : (a32 == ACTIVATION_CLIP && p32.size() == 2 && p32[0] == 0.f);
            if (zero_floor && p8.size() == 2 && p8[0] < 0.f)
                offs[l.tops[0]] = -p8[0];
        }
    }
    e = measure(n32, g8, n8, inputs, false, res, oc, offs, &s32, &s8);
    if (!e.empty())
        return fail(e);
    if (!c.save.empty())
    {
        // the first output of every input, one row each: SAVE/fp32.npy and SAVE/int8.npy
        const int n = (int)inputs.size();
        const int k = n > 0 ? (int)(s32.size() / n) : 0;
        for (int which = 0; which < 2; which++)
        {
            std::vector<float>& v = which == 0 ? s32 : s8;
            if (k == 0 || v.size() != (size_t)n * k)
                return fail("the outputs differ in size between the fp32 and the int8 model");
            Mat m(k, n, (void*)v.data(), 4u, 1, nullptr);
            std::string path = c.save + (which == 0 ? "/fp32.npy" : "/int8.npy");
            std::string we = tools::write_npy(path.c_str(), m);
            if (!we.empty())
                return fail(path + ": " + we);
        }
    }
    e = write_report(c.report, res, false, std::set<std::string>());
    if (!e.empty())
        return fail(e);
    printf("# output cosine %.6f\n", oc.value());
    return 0;
}

int main(int argc, char** argv)
{
    // --help / -h / --version: of the command when one is given
    const std::string cmd = argc >= 2 ? argv[1] : "";
    const tools::ToolInfo& info = cmd == "table" ? kTableInfo : cmd == "int8" ? kInt8Info : cmd == "report" ? kReportInfo : kInfo;
    int rc = tools::handle_standard_options(info, argc, argv);
    if (rc >= 0)
        return rc;
    if (argc < 2)
        return usage_fail("expected a command: table, int8 or report");
    if (cmd == "table")
        return cmd_table(argc, argv);
    if (cmd == "int8")
        return cmd_int8(argc, argv);
    if (cmd == "report")
        return cmd_report(argc, argv);
    if (!cmd.empty() && cmd[0] == '-')
        return usage_fail("unknown option '" + cmd + "'");
    return usage_fail("unknown command '" + cmd + "' (table, int8 or report)");
}
