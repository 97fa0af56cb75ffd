// libFuzzer target: bytes -> onnx2kite's parser, shape inference, folding and
// lowering, then the param/bin writer's graph clean-up. Any input must end in
// a converted graph or a ConvertError message, never a crash or a leak.
#include "onnx_convert.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kite_onnx::ConvertOptions opt;
    kite_onnx::KGraph g;
    std::string err;
    if (kite_onnx::convert_onnx_buffer(data, size, opt, g, nullptr, err))
    {
        g.finalize();
        std::string text = g.param_text();
        std::vector<char> bin = g.bin_bytes();
        (void)text;
        (void)bin;
    }
    return 0;
}
