// onnx2kite: convert an ONNX model to kite's (ncnn's) param/bin format.
//
//   onnx2kite model.onnx out.param out.bin [inputshape=NAME:[1,3,224,224]]...
//   onnx2kite --ops        lists the ONNX operators it converts or folds
//
// Exit status 0 on success; otherwise one line (the unsupported-operator list
// may span several) on stderr, status 1, and no output files.
#include "onnx_convert.h"
#include "writer.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace kite_onnx;

static int usage()
{
    fprintf(stderr, "usage: onnx2kite model.onnx out.param out.bin [inputshape=NAME:[d0,d1,...]]...\n");
    return 1;
}

static bool parse_shape_arg(const std::string& a, ConvertOptions& opt)
{
    size_t colon = a.rfind(":[");
    if (colon == std::string::npos || a.back() != ']')
        return false;
    std::string name = a.substr(11, colon - 11);
    std::string list = a.substr(colon + 2, a.size() - colon - 3);
    Shape s;
    std::stringstream ss(list);
    std::string tok;
    while (std::getline(ss, tok, ','))
    {
        char* end = nullptr;
        long long v = strtoll(tok.c_str(), &end, 10);
        if (tok.empty() || *end || v < 1 || v > (1 << 24))
            return false;
        s.push_back(v);
    }
    if (s.empty() || name.empty())
        return false;
    opt.input_shapes[name] = s;
    return true;
}

int main(int argc, char** argv)
{
    if (argc == 2 && strcmp(argv[1], "--ops") == 0)
    {
        for (const std::string& op : supported_ops())
            printf("%s\n", op.c_str());
        return 0;
    }
    if (argc < 4)
        return usage();
    ConvertOptions opt;
    for (int i = 4; i < argc; i++)
    {
        std::string a = argv[i];
        if (a.compare(0, 11, "inputshape=") != 0 || !parse_shape_arg(a, opt))
        {
            fprintf(stderr, "onnx2kite: error: bad argument '%s' (expected inputshape=NAME:[d0,d1,...])\n", argv[i]);
            return 1;
        }
    }
    auto t0 = std::chrono::steady_clock::now();
    std::ifstream f(argv[1], std::ios::binary);
    if (!f)
    {
        fprintf(stderr, "onnx2kite: error: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad())
    {
        fprintf(stderr, "onnx2kite: error: cannot read %s\n", argv[1]);
        return 1;
    }
    KGraph g;
    ConvertStats st;
    std::string err;
    kite::convert::FinalizeOptions fo;
    if (!convert_onnx_buffer(data.data(), data.size(), opt, g, fo.outputs, &st, err))
    {
        fprintf(stderr, "onnx2kite: error: %s: %s\n", argv[1], err.c_str());
        return 1;
    }
    if (kite::convert::finalize_and_write(g, argv[2], argv[3], "onnx2kite", fo) != 0)
        return 1;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    int nodes = 0;
    for (const auto& kv : st.onnx_ops)
        nodes += kv.second;
    fprintf(stderr, "onnx2kite: %s -> %s: %d nodes (%d folded) -> %d layers in %.1f ms\n", argv[1], argv[2], nodes, st.folded_nodes, (int)g.layers.size(), ms);
    return 0;
}
