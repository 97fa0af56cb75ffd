// libFuzzer target: bytes -> onnx2kite's parser, shape inference, folding and
// lowering, then the param/bin writer's graph clean-up. Any input must end in
// a converted graph or a ConvertError message, never a crash or a leak.
#include "onnx_convert.h"
#include "writer.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kite_onnx::ConvertOptions opt;
    kite_onnx::KGraph g;
    kite::convert::FinalizeOptions fo;
    std::string err;
    if (kite_onnx::convert_onnx_buffer(data, size, opt, g, fo.outputs, nullptr, err) && kite::convert::finalize(g, fo) == 0)
    {
        std::string text = kite::convert::param_text(g);
        std::vector<unsigned char> bin = kite::convert::bin_bytes(g);
        (void)text;
        (void)bin;
    }
    return 0;
}
