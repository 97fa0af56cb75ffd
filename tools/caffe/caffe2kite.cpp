// caffe2kite: Caffe deploy.prototxt + .caffemodel -> kite/ncnn .param + .bin
//
//   caffe2kite deploy.prototxt model.caffemodel out.param out.bin [outputs=a,b] [fp16=1]
//
// Both the V1 (`layers { type: CONVOLUTION }`) and V2 (`layer { type:
// "Convolution" }`) forms are read; inputs come from Input layers or the net's
// input/input_shape/input_dim; in-place layers get fresh blob names, blobs
// read twice get Split layers. Unsupported layers are listed all at once
// (type, count, first layer) and nothing is written; any error: one line on
// stderr, exit status 1, no output files.

#include "caffe_parser.h"
#include "writer.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace kite;

static bool read_file(const char* path, std::string& out, std::string& err)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
    {
        err = std::string("cannot open '") + path + "': " + strerror(errno);
        return false;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    if (f.bad())
    {
        err = std::string("cannot read '") + path + "'";
        return false;
    }
    out = ss.str();
    return true;
}

int main(int argc, char** argv)
{
    if (argc < 5)
    {
        fprintf(stderr, "usage: caffe2kite deploy.prototxt model.caffemodel out.param out.bin [outputs=a,b] [fp16=1]\n");
        return 1;
    }
    convert::FinalizeOptions opt;
    bool fp16 = false;
    for (int i = 5; i < argc; i++)
    {
        std::string a = argv[i];
        if (a.compare(0, 8, "outputs=") == 0)
        {
            std::stringstream ss(a.substr(8));
            std::string o;
            while (std::getline(ss, o, ','))
                if (!o.empty())
                    opt.outputs.push_back(o);
        }
        else if (a == "fp16=1")
            fp16 = true;
        else if (a != "fp16=0")
        {
            fprintf(stderr, "caffe2kite: error: unknown argument '%s'\n", argv[i]);
            return 1;
        }
    }
    auto t0 = std::chrono::steady_clock::now();
    std::string proto, model, err;
    if (!read_file(argv[1], proto, err) || !read_file(argv[2], model, err))
    {
        fprintf(stderr, "caffe2kite: error: %s\n", err.c_str());
        return 1;
    }
    if (model.empty())
    {
        fprintf(stderr, "caffe2kite: error: '%s' is empty\n", argv[2]);
        return 1;
    }
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
    if (convert::finalize_and_write(g, argv[3], argv[4], "caffe2kite", opt) != 0)
        return 1;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "caffe2kite: %d layers written to %s, %s in %.1f ms\n", (int)g.layers.size(), argv[3], argv[4], ms);
    return 0;
}
