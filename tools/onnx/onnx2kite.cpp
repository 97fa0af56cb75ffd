// onnx2kite: convert an ONNX model to kite's (ncnn's) param/bin format.
//
//   onnx2kite model.onnx out.param out.bin [inputshape=NAME:[1,3,224,224]]...
//   onnx2kite --ops        lists the ONNX operators it converts or folds
//
// Exit status 0 on success; otherwise one line (the unsupported-operator list
// may span several) on stderr, status 1 (2: a wrong command line), and no
// output files. `onnx2kite --help` lists the options.
#include "onnx_convert.h"
#include "writer.h"

#include "common/args.h"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

using namespace kite_onnx;

using namespace kite::tools;

static const ToolInfo kInfo = {
    "onnx2kite",
    "model.onnx out.param out.bin [inputshape=NAME:[d0,d1,...]]...\n--ops",
    "Convert an ONNX model to kite's (ncnn's) param/bin format.",
    {
        {"model.onnx", "the ONNX model (batch 1)"},
        {"out.param out.bin", "the files written (atomically: nothing is written on an error)"},
        {"inputshape=NAME:[d0,...]", "the shape of input NAME in ONNX order (NCHW), for symbolic dimensions (repeatable)"},
        {"--ops", "list the ONNX operators it converts or folds, one per line, and exit"},
    },
    "kite blobs are channels first ([w,h,c] = ONNX's NCHW without the batch). Unsupported operators are\n"
    "listed all at once with their counts; nothing is written then. Sizes that follow the input (Reshape of\n"
    "token grids, ...) are derived at run time, so the model also runs at other input sizes; a model whose\n"
    "size is fixed (ViT's position embedding, Swin's folded masks) gets a note saying why."};

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
    int std_rc = handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    ConvertOptions opt;
    bool list_ops = false;
    std::vector<const char*> files;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a == "--ops")
            list_ops = true;
        else if (a.size() > 1 && a[0] == '-')
            return usage_error(kInfo, "unknown option '" + a + "'");
        else if (a.compare(0, 11, "inputshape=") == 0)
        {
            if (!parse_shape_arg(a, opt))
                return usage_error(kInfo, "bad argument '" + a + "' (expected inputshape=NAME:[d0,d1,...] of positive ints)");
        }
        else if (files.size() < 3)
            files.push_back(argv[i]);
        else
            return usage_error(kInfo, "unknown argument '" + a + "'");
    }
    if (list_ops)
    {
        if (!files.empty())
            return usage_error(kInfo, "--ops takes no file names");
        for (const std::string& op : supported_ops())
            printf("%s\n", op.c_str());
        return 0;
    }
    if (files.size() < 3)
        return usage_error(kInfo, "expected model.onnx out.param out.bin, got " + std::to_string(files.size()) + " file name(s)");
    const char* const onnx_path = files[0];
    const char* const param_out = files[1];
    const char* const bin_out = files[2];
    auto t0 = std::chrono::steady_clock::now();
    // parsed from the file in blocks (convert_onnx_file): its bytes are not
    // held next to the parsed model
    std::ifstream f(onnx_path, std::ios::binary | std::ios::ate);
    if (!f)
        return failure(kInfo, file_error("cannot open", onnx_path));
    const std::streamoff file_size = f.tellg();
    if (file_size > (std::streamoff)INT_MAX) // protobuf's limit; a directory seeks to a huge end too
        return failure(kInfo, quoted(onnx_path) + ": not a valid ONNX model (not a regular file of at most 2 GiB)");
    if (file_size < 0)
        return failure(kInfo, file_error("cannot read", onnx_path));
    f.close();
    if (file_size > ((std::streamoff)64 << 20)) // large models take seconds: say what is going on
        progress(kInfo, "converting " + quoted(onnx_path) + " (" + std::to_string(file_size >> 20) + " MiB)...");
    KGraph g;
    ConvertStats st;
    std::string err;
    kite::convert::FinalizeOptions fo;
    if (!convert_onnx_file(onnx_path, opt, g, fo.outputs, &st, err))
    {
        return failure(kInfo, quoted(onnx_path) + ": " + err);
    }
    if (kite::convert::finalize_and_write(g, param_out, bin_out, "onnx2kite", fo) != 0)
        return 1;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    int nodes = 0;
    for (const auto& kv : st.onnx_ops)
        nodes += kv.second;
    if (!st.size_note.empty())
        fprintf(stderr, "onnx2kite: note: %s\n", st.size_note.c_str());
    if (!st.fixed_size.empty())
        fprintf(stderr, "onnx2kite: note: %s\n", st.fixed_size.c_str());
    fprintf(stderr, "onnx2kite: %s -> %s: %d nodes (%d folded) -> %d layers in %.1f ms\n", onnx_path, param_out, nodes, st.folded_nodes, (int)g.layers.size(), ms);
    return 0;
}
