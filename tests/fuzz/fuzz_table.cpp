// libFuzzer target: calibration tables in ncnn2table's format
// (kite::quantize::read_table_stream, what kitequantize int8 reads).
#include "fuzz_common.h"
#include "quantize.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    std::istringstream in(std::string((const char*)data, size));
    kite::quantize::Table t;
    std::string error;
    if (kite::quantize::read_table_stream(in, "fuzz.table", t, error) != 0)
    {
        if (error.empty())
        {
            fprintf(stderr, "read_table failed without an error message\n");
            abort();
        }
        return 0;
    }
    // what was accepted: every entry has scales, finite and non-negative
    for (const auto& kv : t.weight)
        for (float v : kv.second)
            if (!std::isfinite(v) || v < 0.f || kv.second.empty())
                abort();
    for (const auto& kv : t.blob)
        if (!std::isfinite(kv.second) || kv.second < 0.f)
            abort();
    return 0;
}
