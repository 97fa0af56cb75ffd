// libFuzzer target: bytes -> tensorflow2kite's GraphDef parser, constant
// folding and op lowering, then the writer's graph clean-up. Any input must
// end in a converted graph, an unsupported-op list or an error message,
// never a crash, a leak or undefined behaviour.
#include "tf_const.h"
#include "tf_convert.h"
#include "writer.h"

#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // keep single constants small: a 20-byte input may declare a huge shape
    kite::tf::set_element_limit((int64_t)1 << 20);
    google::protobuf::SetLogHandler(nullptr); // invalid UTF-8 names are logged by protobuf
    kite::tf::ConvertOptions opt;
    kite::convert::Graph g;
    kite::convert::UnsupportedOps unsupported;
    std::vector<std::string> outputs;
    std::string err;
    const int ret = kite::tf::convert_graphdef(std::string((const char*)data, size), opt, g, unsupported, outputs, err);
    if (ret != 0 && err.empty())
    {
        fprintf(stderr, "convert_graphdef failed without an error message\n");
        abort();
    }
    if (ret == 0 && unsupported.empty())
    {
        kite::convert::FinalizeOptions fo;
        fo.outputs = outputs;
        if (kite::convert::finalize(g, fo) == 0)
        {
            std::string text = kite::convert::param_text(g);
            std::vector<unsigned char> bin = kite::convert::bin_bytes(g);
            (void)text;
            (void)bin;
        }
    }
    return 0;
}
