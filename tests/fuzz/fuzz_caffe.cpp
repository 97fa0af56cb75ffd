// libFuzzer target: caffe2kite's parsers (prototxt text + caffemodel binary)
// and the conversion, then the converter's finalize/writer and kite's text
// param loader on the result.
//
// Input: 4 bytes little-endian n, then n bytes of prototxt (n is taken modulo
// what is left), then the caffemodel bytes (may be empty: zero weights).
#include "caffe_parser.h"
#include "fuzz_common.h"
#include "net.h"
#include "writer.h"

#include <cstdint>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    if (size < 4)
        return 0;
    uint32_t n;
    memcpy(&n, data, 4);
    size_t rest = size - 4;
    n = (uint32_t)(n % (rest + 1));
    std::string proto((const char*)data + 4, n);
    std::string model((const char*)data + 4 + n, rest - n);

    kite::convert::Graph g;
    kite::convert::UnsupportedOps unsupported;
    std::string error;
    int ret = kite::caffe::convert_caffe(proto, model, g, unsupported, error, true);
    if (ret < 0 && error.empty())
    {
        fprintf(stderr, "convert_caffe failed without a message\n");
        abort();
    }
    if (ret > 0 && unsupported.empty())
    {
        fprintf(stderr, "convert_caffe reported unsupported ops without listing them\n");
        abort();
    }
    if (ret != 0)
        return 0;
    if (kite::convert::finalize(g) != 0)
    {
        if (g.error.empty())
            abort();
        return 0;
    }
    std::string text = kite::convert::param_text(g);
    std::vector<unsigned char> bin = kite::convert::bin_bytes(g);
    kite::Net net;
    net.opt.num_threads = 1;
    // declared sizes past 1 GB fail at load (the same check as at the default
    // limit, physical memory), not by the fuzzer running out of memory
    net.opt.memory_limit = (size_t)1 << 30;
    kite::clear_last_error();
    int lret = net.load_param_mem(text.c_str());
    kite_fuzz::check_failure_has_message(lret, "load_param_mem of converted caffe model");
    if (lret == 0 && !bin.empty())
    {
        size_t used = net.load_model(bin.data(), bin.size());
        (void)used;
    }
    return 0;
}
