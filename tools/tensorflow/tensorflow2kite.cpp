// tensorflow2kite: a frozen TensorFlow GraphDef (.pb) to kite/ncnn param/bin.
//
//   tensorflow2kite frozen.pb out.param out.bin [inputs=a,b] [outputs=x,y]
//                   [input_shapes=1,224,224,3:1,...] [input_formats=NHWC|NCHW|NONE,...]
//                   [output_formats=NHWC|NCHW|NONE,...] [fp16=1]
//
// inputs: Placeholder names (default: every Placeholder); input_shapes: one
// TF-order shape per input, ':' between inputs, for unknown dimensions.
// Formats as in MACE's deployment file: NHWC (default) means the data is
// given / wanted in TF's own order (rank-4 input blobs hold H,W,C as
// kite's c,h,w); NCHW means kite's native CHW; NONE = no data format
// (same as NHWC here: TF's order, no transposition). Outputs default to the
// nodes nobody reads. Unsupported ops are listed all at once; on any error
// nothing is written and the exit status is 1 (2: a wrong command line).

#include "graph.h"
#include "optimize.h"
#include "report.h"
#include "writer.h"

#include "tf_convert.h"

#include "common/args.h"

#include <google/protobuf/stubs/common.h>
#include <google/protobuf/stubs/logging.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>
#include <string>
#include <vector>

using namespace kite;

namespace {

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> r;
    std::string cur;
    for (char c : s)
    {
        if (c == sep)
        {
            r.push_back(cur);
            cur.clear();
        }
        else
        {
            cur += c;
        }
    }
    r.push_back(cur);
    return r;
}

const tools::ToolInfo kInfo = {
    "tensorflow2kite",
    "frozen.pb out.param out.bin [key=value]...",
    "Convert a frozen TensorFlow GraphDef (.pb) to kite's (ncnn's) param/bin format.",
    {
        {"frozen.pb", "the frozen graph (variables folded into constants)"},
        {"out.param out.bin", "the files written (atomically: nothing is written on an error)"},
        {"inputs=a,b", "the Placeholder nodes that are inputs (default: every Placeholder)"},
        {"outputs=x,y", "the output nodes (default: the nodes nobody reads)"},
        {"input_shapes=S:S", "one TF-order shape per input (1,224,224,3), ':' between inputs, for unknown dimensions"},
        {"input_formats=F,...", "per input: NHWC (default: data in TF's order), NCHW (kite's channels first) or NONE"},
        {"output_formats=F,...", "per output: NHWC (default), NCHW or NONE, as input_formats"},
        {"fp16=0|1", "1: store the weights as fp16 (default 0)"},
    },
    "Unsupported ops are listed all at once (type, count, first node); nothing is written then. Sizes that\n"
    "follow the input are derived at run time, so the model also runs at other input sizes; a graph whose\n"
    "size is fixed (e.g. frozen at a static shape where TensorFlow folded H*W) gets a note saying why."};

bool parse_formats(const std::string& v, std::vector<tf::DataFormat>& out)
{
    for (const std::string& f : split(v, ','))
    {
        if (f == "NHWC")
            out.push_back(tf::FORMAT_NHWC);
        else if (f == "NCHW")
            out.push_back(tf::FORMAT_NCHW);
        else if (f == "NONE")
            out.push_back(tf::FORMAT_NONE);
        else
            return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    int std_rc = tools::handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    tf::ConvertOptions opt;
    bool fp16 = false;
    std::vector<const char*> files;
    for (int i = 1; i < argc; i++)
    {
        const std::string a = argv[i];
        if (a.size() > 1 && a[0] == '-')
            return tools::usage_error(kInfo, "unknown option '" + a + "'");
        const size_t eq = a.find('=');
        const std::string k = eq == std::string::npos ? std::string() : a.substr(0, eq);
        const std::string v = eq == std::string::npos ? std::string() : a.substr(eq + 1);
        if (k == "inputs")
        {
            opt.inputs = split(v, ',');
        }
        else if (k == "outputs")
        {
            opt.outputs = split(v, ',');
        }
        else if (k == "input_shapes")
        {
            for (const std::string& s : split(v, ':'))
            {
                std::vector<int64_t> shape;
                for (const std::string& d : split(s, ','))
                {
                    char* end = nullptr;
                    const long long x = strtoll(d.c_str(), &end, 10);
                    if (d.empty() || *end || x <= 0 || x > (1LL << 30))
                        return tools::usage_error(kInfo, "input_shapes: '" + s + "' is not a list of positive ints");
                    shape.push_back(x);
                }
                opt.input_shapes.push_back(shape);
            }
        }
        else if (k == "input_formats" || k == "output_formats")
        {
            if (!parse_formats(v, k == "input_formats" ? opt.input_formats : opt.output_formats))
                return tools::usage_error(kInfo, k + ": each format is NHWC, NCHW or NONE");
        }
        else if (k == "fp16" && (v == "0" || v == "1"))
        {
            fp16 = v == "1";
        }
        else if (files.size() < 3 && k.empty())
        {
            files.push_back(argv[i]);
        }
        else
        {
            return tools::usage_error(kInfo, (k == "fp16" ? "bad value in '" : "unknown argument '") + a + "'");
        }
    }
    if (files.size() < 3)
        return tools::usage_error(kInfo, "expected frozen.pb out.param out.bin, got " + std::to_string(files.size()) + " file name(s)");
    const char* const pb_path = files[0];
    const char* const param_out = files[1];
    const char* const bin_out = files[2];

    const auto t0 = std::chrono::steady_clock::now();
    // parsed from the file in blocks (convert_graphdef_file): its bytes are
    // not held next to the parsed graph
    std::ifstream f(pb_path, std::ios::binary | std::ios::ate);
    if (!f)
        return tools::failure(kInfo, tools::file_error("cannot open", pb_path));
    const std::streamoff file_size = f.tellg();
    if (file_size > (std::streamoff)INT_MAX) // protobuf's limit; a directory seeks to a huge end too
        return tools::failure(kInfo, tools::quoted(pb_path) + ": not a TensorFlow GraphDef (not a regular file of at most 2 GiB)");
    if (file_size < 0)
        return tools::failure(kInfo, tools::file_error("cannot read", pb_path));
    f.close();
    if (file_size > ((std::streamoff)64 << 20)) // large models take seconds: say what is going on
        tools::progress(kInfo, "converting " + tools::quoted(pb_path) + " (" + std::to_string(file_size >> 20) + " MiB)...");

    // protobuf's own parse complaints (e.g. invalid UTF-8) would precede our
    // one-line error; the parse failure is reported below
    google::protobuf::SetLogHandler(nullptr);
    convert::Graph g;
    convert::UnsupportedOps unsupported;
    std::vector<std::string> outputs;
    std::string error;
    std::string fixed_size;
    const int ret = tf::convert_graphdef_file(pb_path, opt, g, unsupported, outputs, error, &fixed_size);
    google::protobuf::ShutdownProtobufLibrary();
    if (ret != 0)
    {
        return tools::failure(kInfo, tools::quoted(pb_path) + ": " + error);
    }
    if (!unsupported.empty())
        return unsupported.print("tensorflow2kite");
    if (fp16)
        convert::use_fp16_storage(g);
    convert::FinalizeOptions fo;
    fo.outputs = outputs;
    // kiteoptimize's fusions (Padding into convolutions, activations and scalar
    // multiplies into them) on the converted graph
    convert::OptimizeStats ost;
    if (convert::optimize_converted(g, fo, ost) != 0)
        return tools::failure(kInfo, g.error);
    if (convert::finalize_and_write(g, param_out, bin_out, "tensorflow2kite", fo) != 0)
        return 1;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!fixed_size.empty())
        fprintf(stderr, "tensorflow2kite: note: %s\n", fixed_size.c_str());
    fprintf(stderr, "tensorflow2kite: %s -> %s, %s: %d layers, %.0f ms\n", pb_path, param_out, bin_out, (int)g.layers.size(), ms);
    return 0;
}
