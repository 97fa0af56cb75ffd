// libFuzzer target: binary .param.bin parsing (Net::load_param_bin from a
// DataReaderFromMemory over exactly the fuzzer's bytes).
#include "datareader.h"
#include "fuzz_common.h"
#include "net.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    kite::Net net;
    net.opt.num_threads = 1;
    // declared sizes past 1 GB fail at load (the same check as at the default
    // limit, physical memory), not by the fuzzer running out of memory
    net.opt.memory_limit = (size_t)1 << 30;
    kite::clear_last_error();
    kite::DataReaderFromMemory dr(data, size);
    int ret = net.load_param_bin(dr);
    kite_fuzz::check_failure_has_message(ret, "load_param_bin");
    if (ret == 0)
    {
        if (dr.consumed() > size)
        {
            fprintf(stderr, "reader consumed %zu of %zu bytes\n", dr.consumed(), size);
            abort();
        }
        (void)net.output_names();
    }
    return 0;
}
