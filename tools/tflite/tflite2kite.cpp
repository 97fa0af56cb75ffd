// tflite2kite: a TensorFlow Lite model (.tflite) to kite/ncnn param/bin.
//
//   tflite2kite model.tflite out.param out.bin [fp16=0|1] [int8=0|1]
//
// fp32 models, fp16 models (FLOAT16 weights behind DEQUANTIZE, folded) and
// int8 models (full-integer quantization: int8 weights with per-channel or
// per-tensor scales onto kite's int8 Convolution / ConvolutionDepthWise /
// InnerProduct; the other ops in fp32 on dequantized values). Rank-4 inputs
// and outputs keep TFLite's NHWC order (an (H, W, C) .npy for kiterun).
// Unsupported ops are listed all at once; on any error nothing is written
// and the exit status is 1 (2: a wrong command line).

#include "optimize.h"
#include "report.h"
#include "writer.h"

#include "tflite_convert.h"

#include "common/args.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;

namespace {

const tools::ToolInfo kInfo = {
    "tflite2kite",
    "model.tflite out.param out.bin [key=value]...",
    "Convert a TensorFlow Lite model (.tflite: fp32, fp16 or int8) to kite's (ncnn's) param/bin format.",
    {
        {"model.tflite", "the model (its first subgraph is converted)"},
        {"out.param out.bin", "the files written (atomically: nothing is written on an error)"},
        {"fp16=0|1", "1: store the weights as fp16 (default: 1 when the model's weights are fp16, else 0)"},
        {"int8=0|1", "0: dequantize int8 weights into fp32 layers (default 1: kite's int8 layers)"},
    },
    "Rank-4 inputs and outputs keep TFLite's NHWC order (an (H, W, C) .npy for kiterun). Quantized inputs and outputs\n"
    "are given and returned as real (dequantized) values. Unsupported ops are listed all at once (type, count, first\n"
    "node); nothing is written then."};

} // namespace

int main(int argc, char** argv)
{
    int std_rc = tools::handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    convert::tflite::ConvertOptions opt;
    int fp16 = -1;
    std::vector<const char*> files;
    for (int i = 1; i < argc; i++)
    {
        const std::string a = argv[i];
        if (a.size() > 1 && a[0] == '-')
            return tools::usage_error(kInfo, "unknown option '" + a + "'");
        const size_t eq = a.find('=');
        const std::string k = eq == std::string::npos ? std::string() : a.substr(0, eq);
        const std::string v = eq == std::string::npos ? std::string() : a.substr(eq + 1);
        if ((k == "fp16" || k == "int8") && v != "0" && v != "1")
            return tools::usage_error(kInfo, "bad value in '" + a + "' (0 or 1)");
        if (k == "fp16")
            fp16 = v == "1";
        else if (k == "int8")
            opt.int8_layers = v == "1";
        else if (files.size() < 3 && k.empty())
            files.push_back(argv[i]);
        else
            return tools::usage_error(kInfo, "unknown argument '" + a + "'");
    }
    if (files.size() < 3)
        return tools::usage_error(kInfo, "expected model.tflite out.param out.bin, got " + std::to_string(files.size())
                                             + " file name(s)");
    const char* const path = files[0];

    const auto t0 = std::chrono::steady_clock::now();
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return tools::failure(kInfo, tools::file_error("cannot open", path));
    std::stringstream ss;
    ss << f.rdbuf();
    if (f.bad())
        return tools::failure(kInfo, tools::file_error("cannot read", path));
    const std::string bytes = ss.str();
    if (bytes.size() > ((size_t)64 << 20))
        tools::progress(kInfo, "converting " + tools::quoted(path) + " (" + std::to_string(bytes.size() >> 20) + " MiB)...");

    convert::Graph g;
    convert::UnsupportedOps unsupported;
    convert::tflite::ConvertStats stats;
    std::string error;
    if (convert::tflite::convert_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), opt, g, unsupported,
                                       stats, error)
        != 0)
        return tools::failure(kInfo, tools::quoted(path) + ": " + error);
    if (!unsupported.empty())
        return unsupported.print("tflite2kite");
    if (fp16 < 0)
        fp16 = stats.fp16_weights > 0 && stats.float_weights == 0;
    if (fp16)
        convert::use_fp16_storage(g);
    convert::FinalizeOptions fo;
    fo.outputs = stats.outputs;
    // kiteoptimize's fusions (HardSwish / Sigmoid into convolutions, scalar multiplies
    // after them) on fp32 graphs; int8 graphs are left as converted
    convert::OptimizeStats ost;
    if (stats.int8_layers == 0 && convert::optimize_converted(g, fo, ost) != 0)
        return tools::failure(kInfo, g.error);
    if (convert::finalize_and_write(g, files[1], files[2], "tflite2kite", fo) != 0)
        return 1;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::string ins, outs;
    for (const std::string& s : stats.inputs)
        ins += (ins.empty() ? "" : ",") + s;
    for (const std::string& s : stats.outputs)
        outs += (outs.empty() ? "" : ",") + s;
    fprintf(stderr, "tflite2kite: %s -> %s, %s: %d ops (%d types) -> %d layers (%d int8%s), inputs %s, outputs %s, %.0f ms\n", path,
            files[1], files[2], stats.ops, stats.op_types, (int)g.layers.size(), stats.int8_layers, fp16 ? ", fp16 weights" : "",
            ins.c_str(), outs.c_str(), ms);
    return 0;
}
