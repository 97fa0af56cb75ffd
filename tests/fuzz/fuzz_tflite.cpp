// libFuzzer target: bytes -> tflite2kite's flatbuffer reader (Verifier and
// kite's accessors), dequantization and op lowering, then the writer's graph
// clean-up. Any input must end in a converted graph, an unsupported-op list
// or an error message, never a crash, a leak or undefined behaviour.
// Seeds: tests/convert/tflite/tflite_errors.py --work DIR --seeds SEEDS
#include "tflite_convert.h"
#include "writer.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // the reader keeps pointers into the buffer: an aligned copy, as a file read gives
    std::vector<uint64_t> copy((size + 7) / 8);
    if (size)
        memcpy(copy.data(), data, size);
    kite::convert::tflite::ConvertOptions opt;
    kite::convert::tflite::ConvertStats stats;
    kite::convert::Graph g;
    kite::convert::UnsupportedOps unsupported;
    std::string err;
    const int ret = kite::convert::tflite::convert_model(reinterpret_cast<const uint8_t*>(copy.data()), size, opt, g,
                                                         unsupported, stats, err);
    if (ret != 0 && err.empty())
    {
        fprintf(stderr, "convert_model failed without an error message\n");
        abort();
    }
    if (ret == 0 && unsupported.empty())
    {
        kite::convert::FinalizeOptions fo;
        fo.outputs = stats.outputs;
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
