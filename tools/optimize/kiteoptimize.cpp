// kiteoptimize: fuse and clean a kite/ncnn model, optionally with fp16 weights.
//
//   kiteoptimize in.param in.bin out.param out.bin [fp16] [outputs=a,b]
//
// See optimize.h for the passes. Outputs keep their names; the result is
// written atomically (no partial files on error). Exit status 0, 1 on a
// failure, 2 on a wrong command line (`kiteoptimize --help`).

#include "optimize.h"
#include "reader.h"
#include "writer.h"

#include "common/args.h"

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace kite::convert;

static const kite::tools::ToolInfo kInfo = {
    "kiteoptimize",
    "in.param in.bin out.param out.bin [fp16=0|1] [outputs=a,b]",
    "Fuse and clean a kite/ncnn model (BatchNorm/Scale/BinaryOp/activations into convolutions, no-op layers out).",
    {
        {"in.param in.bin", "the model to optimise (text .param and its weights)"},
        {"out.param out.bin", "the files written (atomically: nothing is written on an error)"},
        {"fp16=0|1", "1: store the weights as fp16 (also accepted: `fp16`, `1`; `0`, `fp32`)"},
        {"outputs=a,b", "the blobs that must survive (default: the input graph's unconsumed blobs)"},
    },
    nullptr};

int main(int argc, char** argv)
{
    using namespace kite::tools;
    int std_rc = handle_standard_options(kInfo, argc, argv);
    if (std_rc >= 0)
        return std_rc;
    bool fp16 = false;
    FinalizeOptions opt;
    std::vector<const char*> files;
    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if (a.size() > 1 && a[0] == '-')
            return usage_error(kInfo, "unknown option '" + a + "'");
        if (files.size() >= 4 && (a == "fp16" || a == "1" || a == "fp16=1"))
            fp16 = true;
        else if (files.size() >= 4 && (a == "0" || a == "fp32" || a == "fp16=0"))
            fp16 = false;
        else if (a.compare(0, 8, "outputs=") == 0)
        {
            std::stringstream ss(a.substr(8));
            std::string o;
            while (std::getline(ss, o, ','))
                if (!o.empty())
                    opt.outputs.push_back(o);
        }
        else if (a.compare(0, 5, "fp16=") == 0)
            return usage_error(kInfo, "bad value in '" + a + "' (0 or 1)");
        else if (files.size() < 4)
            files.push_back(argv[i]);
        else
            return usage_error(kInfo, "unknown argument '" + a + "'");
    }
    if (files.size() < 4)
        return usage_error(kInfo, "expected in.param in.bin out.param out.bin, got " + std::to_string(files.size()) + " file name(s)");
    Graph g;
    std::string err;
    if (read_model(files[0], files[1], g, err) != 0)
    {
        return failure(kInfo, err);
    }
    size_t before = g.layers.size();
    // outputs default to the input graph's unconsumed blobs, which must survive
    if (opt.outputs.empty())
        opt.outputs = g.unconsumed_blobs();
    OptimizeStats st;
    optimize_graph(g, opt.outputs, st);
    if (fp16)
        use_fp16_storage(g);
    if (finalize_and_write(g, files[2], files[3], "kiteoptimize", opt) != 0)
        return 1;
    fprintf(stderr,
            "kiteoptimize: %d -> %d layers; removed %d Split, %d Dropout/Noop, %d Flatten; fused %d BatchNorm, %d Scale, "
            "%d BinaryOp, %d activations, %d Padding, %d 1x1 heads%s\n",
            (int)before, (int)g.layers.size(), st.split, st.dropout, st.flatten, st.batchnorm, st.scale, st.binaryop,
            st.activation, st.padding, st.head, fp16 ? "; fp16 weights" : "");
    return 0;
}
