// libFuzzer target: .bin weights. The graph is fixed (Input, Convolution with
// bias, ReLU, Convolution with fp16-capable weights); the fuzzer's bytes are
// the weights, loaded in place from memory with Net::load_model(mem, size).
// When they load, the graph runs on a fixed input.
#include "fuzz_common.h"
#include "net.h"

#include <cstring>

static const char kParam[] =
    "7767517\n"
    "4 4\n"
    "Input in0 0 1 in0 0=6 1=5 2=3\n"
    "Convolution conv1 1 1 in0 c1 0=4 1=3 4=1 5=1 6=108\n"
    "ReLU relu1 1 1 c1 r1\n"
    "Convolution conv2 1 1 r1 out0 0=2 1=1 5=0 6=8\n";

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    kite::Net net;
    net.opt.num_threads = 1;
    // declared sizes past 1 GB fail at load (the same check as at the default
    // limit, physical memory), not by the fuzzer running out of memory
    net.opt.memory_limit = (size_t)1 << 30;
    if (net.load_param_mem(kParam) != 0)
    {
        fprintf(stderr, "fuzz_model_bin: the fixed param does not load: %s\n", kite::last_error());
        abort();
    }
    kite::clear_last_error();
    size_t used = net.load_model(data, size);
    kite_fuzz::check_failure_has_message(used == 0 && !net.model_loaded() ? -1 : 0, "load_model(mem)");
    if (used > size)
    {
        fprintf(stderr, "load_model consumed %zu of %zu bytes\n", used, size);
        abort();
    }
    if (net.model_loaded())
    {
        kite::Mat in(6, 5, 3);
        for (int q = 0; q < 3; q++)
        {
            float* p = in.channel(q);
            for (int i = 0; i < 30; i++)
                p[i] = (float)((i + q) % 7) * 0.25f - 0.75f;
        }
        kite::Extractor ex = net.create_extractor();
        ex.input("in0", in);
        kite::Mat out;
        if (ex.extract("out0", out) == 0 && (out.w != 6 || out.h != 5 || out.c != 2))
        {
            fprintf(stderr, "fuzz_model_bin: wrong output shape %d x %d x %d\n", out.w, out.h, out.c);
            abort();
        }
    }
    return 0;
}
