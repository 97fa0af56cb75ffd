// libFuzzer target: text .param parsing (Net::load_param_mem).
#include "fuzz_common.h"
#include "net.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    std::string text((const char*)data, size);
    kite::Net net;
    net.opt.num_threads = 1;
    // declared sizes past 1 GB fail at load (the same check as at the default
    // limit, physical memory), not by the fuzzer running out of memory
    net.opt.memory_limit = (size_t)1 << 30;
    kite::clear_last_error();
    int ret = net.load_param_mem(text.c_str());
    kite_fuzz::check_failure_has_message(ret, "load_param_mem");
    if (ret == 0)
    {
        // walk what was built; extracting without weights must fail cleanly
        (void)net.input_names();
        std::vector<int> outs = net.output_indexes();
        kite::Extractor ex = net.create_extractor();
        kite::Mat out;
        if (!outs.empty() && ex.extract(outs[0], out) == 0)
        {
            fprintf(stderr, "extract succeeded without weights\n");
            abort();
        }
    }
    return 0;
}
