// libFuzzer target: numpy .npy files (kite::tools::read_npy_stream: kiterun
// input=, kitecheck, kitequantize data=), read from memory through fmemopen.
#include "common/npy.h"
#include "fuzz_common.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size)
{
    kite_fuzz::init_once();
    if (size == 0)
        return 0;
    FILE* fp = fmemopen((void*)data, size, "rb");
    if (!fp)
        return 0;
    kite::Mat m;
    std::string error = kite::tools::read_npy_stream(fp, "fuzz.npy", m);
    fclose(fp);
    if (!error.empty())
        return 0;
    if (m.empty() || m.elemsize != 4u || m.elempack != 1)
    {
        fprintf(stderr, "read_npy accepted a file but gave no fp32 Mat\n");
        abort();
    }
    // touch every value: a wrong shape or cstep shows up under ASan
    double sum = 0;
    for (int q = 0; q < m.c; q++)
    {
        const float* p = m.channel(q);
        for (size_t i = 0; i < (size_t)m.w * m.h * m.d; i++)
            sum += p[i];
    }
    (void)sum;
    return 0;
}
