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
// nothing is written and the exit status is 1.

#include "graph.h"
#include "report.h"
#include "writer.h"

#include "tf_convert.h"

#include <google/protobuf/stubs/common.h>
#include <google/protobuf/stubs/logging.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
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

int usage()
{
    fprintf(stderr, "usage: tensorflow2kite frozen.pb out.param out.bin [inputs=a,b] [outputs=x,y] [input_shapes=1,224,224,3:...]\n"
                    "                       [input_formats=NHWC|NCHW|NONE,...] [output_formats=NHWC|NCHW|NONE,...] [fp16=1]\n");
    return 1;
}

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
    if (argc < 4)
        return usage();
    tf::ConvertOptions opt;
    bool fp16 = false;
    for (int i = 4; i < argc; i++)
    {
        const std::string a = argv[i];
        const size_t eq = a.find('=');
        if (eq == std::string::npos)
        {
            fprintf(stderr, "tensorflow2kite: error: argument '%s' is not key=value\n", argv[i]);
            return usage();
        }
        const std::string k = a.substr(0, eq), v = a.substr(eq + 1);
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
                    {
                        fprintf(stderr, "tensorflow2kite: error: input_shapes: '%s' is not a list of positive ints\n", s.c_str());
                        return 1;
                    }
                    shape.push_back(x);
                }
                opt.input_shapes.push_back(shape);
            }
        }
        else if (k == "input_formats" || k == "output_formats")
        {
            if (!parse_formats(v, k == "input_formats" ? opt.input_formats : opt.output_formats))
            {
                fprintf(stderr, "tensorflow2kite: error: %s: each format is NHWC, NCHW or NONE\n", k.c_str());
                return 1;
            }
        }
        else if (k == "fp16")
        {
            fp16 = v == "1";
        }
        else
        {
            fprintf(stderr, "tensorflow2kite: error: unknown argument '%s'\n", k.c_str());
            return usage();
        }
    }

    const auto t0 = std::chrono::steady_clock::now();
    std::ifstream f(argv[1], std::ios::binary);
    if (!f)
    {
        fprintf(stderr, "tensorflow2kite: error: cannot open %s\n", argv[1]);
        return 1;
    }
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string bytes = ss.str();

    // protobuf's own parse complaints (e.g. invalid UTF-8) would precede our
    // one-line error; the parse failure is reported below
    google::protobuf::SetLogHandler(nullptr);
    convert::Graph g;
    convert::UnsupportedOps unsupported;
    std::vector<std::string> outputs;
    std::string error;
    const int ret = tf::convert_graphdef(bytes, opt, g, unsupported, outputs, error);
    google::protobuf::ShutdownProtobufLibrary();
    if (ret != 0)
    {
        fprintf(stderr, "tensorflow2kite: error: %s: %s\n", argv[1], error.c_str());
        return 1;
    }
    if (!unsupported.empty())
        return unsupported.print("tensorflow2kite");
    if (fp16)
        convert::use_fp16_storage(g);
    convert::FinalizeOptions fo;
    fo.outputs = outputs;
    if (convert::finalize_and_write(g, argv[2], argv[3], "tensorflow2kite", fo) != 0)
        return 1;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "tensorflow2kite: %s -> %s, %s: %d layers, %.0f ms\n", argv[1], argv[2], argv[3], (int)g.layers.size(), ms);
    return 0;
}
