// caffe2kite: Caffe deploy.prototxt + .caffemodel -> kite/ncnn .param + .bin
//
//   caffe2kite deploy.prototxt model.caffemodel out.param out.bin [outputs=a,b] [fp16=1]
//
// Both the V1 (`layers { type: CONVOLUTION }`) and V2 (`layer { type:
// "Convolution" }`) forms are read; inputs come from Input layers or the net's
// input/input_shape/input_dim; in-place layers get fresh blob names, blobs
// read twice get Split layers. Unsupported layers are listed all at once
// (type, count, first layer) and nothing is written; any error: one line on
// stderr, exit status 1, no output files; a wrong command line: exit status 2.

#include "caffe_parser.h"
#include "writer.h"

#include "common/args.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

using namespace kite;

using namespace kite::tools;

static const ToolInfo kInfo = {
    "caffe2kite",
    "deploy.prototxt model.caffemodel out.param out.bin [outputs=a,b] [fp16=0|1]",
    "Convert a Caffe model (deploy prototxt + trained caffemodel) to kite's (ncnn's) param/bin format.",
    {
        {"deploy.prototxt", "the network definition (text protobuf, V1 `layers` or V2 `layer`)"},
        {"model.caffemodel", "the trained weights (binary protobuf)"},
        {"out.param out.bin", "the files written (atomically: nothing is written on an error)"},
        {"outputs=a,b", "the output blobs to keep (default: the blobs nobody reads)"},
        {"fp16=0|1", "1: store the weights as fp16 (default 0)"},
    },
    "Unsupported layers are listed all at once (type, count, first layer); see docs/ for what converts."};

static bool read_file(const char* path, std::string& out, std::string& err)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
    {
        err = file_error("cannot open", path);
        return false;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad())
    {
        err = file_error("cannot read", path);
        return false;
    }
    out = ss.str();
    return true;
}

int main(int argc, char** argv)
{
    int std_rc = handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    convert::FinalizeOptions opt;
    bool fp16 = false;
    std::vector<const char*> files;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a.size() > 1 && a[0] == '-')
            return usage_error(kInfo, "unknown option '" + a + "'");
        if (a.compare(0, 8, "outputs=") == 0)
        {
            std::stringstream ss(a.substr(8));
            std::string o;
            while (std::getline(ss, o, ','))
                if (!o.empty())
                    opt.outputs.push_back(o);
        }
        else if (a == "fp16=1" || a == "fp16=0")
            fp16 = a == "fp16=1";
        else if (a.compare(0, 5, "fp16=") == 0)
            return usage_error(kInfo, "bad value in '" + a + "' (0 or 1)");
        else if (files.size() < 4)
            files.push_back(argv[i]);
        else
            return usage_error(kInfo, "unknown argument '" + a + "'");
    }
    if (files.size() < 4)
        return usage_error(kInfo, "expected deploy.prototxt model.caffemodel out.param out.bin, got " + std::to_string(files.size()) + " file name(s)");
    const char* const proto_path = files[0];
    const char* const model_path = files[1];
    const char* const param_out = files[2];
    const char* const bin_out = files[3];
    auto t0 = std::chrono::steady_clock::now();
    std::string proto, model, err;
    if (!read_file(proto_path, proto, err) || !read_file(model_path, model, err))
    {
        fprintf(stderr, "caffe2kite: error: %s\n", err.c_str());
        return 1;
    }
    if (model.empty())
        return failure(kInfo, quoted(model_path) + " is empty");
    if (model.size() > ((size_t)64 << 20)) // large models take seconds: say what is going on
        progress(kInfo, "converting " + quoted(model_path) + " (" + std::to_string(model.size() >> 20) + " MiB)...");
    convert::Graph g;
    convert::UnsupportedOps unsupported;
    int ret = caffe::convert_caffe(proto, model, g, unsupported, err);
    if (ret < 0)
    {
        fprintf(stderr, "caffe2kite: error: %s\n", err.c_str());
        return 1;
    }
    if (ret > 0)
        return unsupported.print("caffe2kite");
    if (fp16)
        convert::use_fp16_storage(g);
    if (convert::finalize_and_write(g, param_out, bin_out, "caffe2kite", opt) != 0)
        return 1;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "caffe2kite: %d layers written to %s, %s in %.1f ms\n", (int)g.layers.size(), param_out, bin_out, ms);
    return 0;
}
