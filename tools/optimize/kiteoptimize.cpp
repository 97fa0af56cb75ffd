// kiteoptimize: fuse and clean a kite/ncnn model, optionally with fp16 weights.
//
//   kiteoptimize in.param in.bin out.param out.bin [fp16] [outputs=a,b]
//
// See optimize.h for the passes. Outputs keep their names; the result is
// written atomically (no partial files on error). Exit status 0 or 1.

#include "optimize.h"
#include "reader.h"
#include "writer.h"

#include <cstdio>
#include <sstream>

using namespace kite::convert;

int main(int argc, char** argv)
{
    if (argc < 5)
    {
        fprintf(stderr, "usage: kiteoptimize in.param in.bin out.param out.bin [fp16] [outputs=a,b]\n");
        return 1;
    }
    bool fp16 = false;
    FinalizeOptions opt;
    for (int i = 5; i < argc; i++)
    {
        std::string a = argv[i];
        if (a == "fp16" || a == "1" || a == "fp16=1")
            fp16 = true;
        else if (a == "0" || a == "fp32" || a == "fp16=0")
            fp16 = false;
        else if (a.compare(0, 8, "outputs=") == 0)
        {
            std::stringstream ss(a.substr(8));
            std::string o;
            while (std::getline(ss, o, ','))
                if (!o.empty())
                    opt.outputs.push_back(o);
        }
        else
        {
            fprintf(stderr, "kiteoptimize: error: unknown argument '%s'\n", argv[i]);
            return 1;
        }
    }
    Graph g;
    std::string err;
    if (read_model(argv[1], argv[2], g, err) != 0)
    {
        fprintf(stderr, "kiteoptimize: error: %s\n", err.c_str());
        return 1;
    }
    size_t before = g.layers.size();
    // outputs default to the input graph's unconsumed blobs, which must survive
    if (opt.outputs.empty())
        opt.outputs = g.unconsumed_blobs();
    OptimizeStats st;
    optimize_graph(g, opt.outputs, st);
    if (fp16)
        use_fp16_storage(g);
    if (finalize_and_write(g, argv[3], argv[4], "kiteoptimize", opt) != 0)
        return 1;
    fprintf(stderr,
            "kiteoptimize: %d -> %d layers; removed %d Split, %d Dropout/Noop, %d Flatten; fused %d BatchNorm, %d Scale, "
            "%d BinaryOp, %d activations%s\n",
            (int)before, (int)g.layers.size(), st.split, st.dropout, st.flatten, st.batchnorm, st.scale, st.binaryop,
            st.activation, fp16 ? "; fp16 weights" : "");
    return 0;
}
