// A program built against an installed kite: it loads a two-layer graph
// (Input + ReLU) from memory, runs it and checks the result against max(x, 0).
#include "log.h" // installed as <prefix>/include/kite/log.h
#include "net.h"

#include <cstdio>

static const char kParam[] =
    "7767517\n"
    "2 2\n"
    "Input in0 0 1 in0 0=5 1=3 2=2\n"
    "ReLU relu0 1 1 in0 out0\n";

int main()
{
    kite::Net net;
    net.opt.num_threads = 1;
    if (net.load_param_mem(kParam) != 0 || net.load_model_empty() != 0)
    {
        fprintf(stderr, "consumer: loading failed: %s\n", kite::last_error());
        return 1;
    }
    kite::Mat in(5, 3, 2);
    for (int q = 0; q < in.c; q++)
    {
        float* p = in.channel(q);
        for (int i = 0; i < in.w * in.h; i++)
            p[i] = (float)((i * 7 + q * 3) % 11) - 5.f;
    }
    kite::Extractor ex = net.create_extractor();
    kite::Mat out;
    if (ex.input("in0", in) != 0 || ex.extract("out0", out) != 0)
    {
        fprintf(stderr, "consumer: inference failed: %s\n", kite::last_error());
        return 1;
    }
    if (out.dims != 3 || out.w != 5 || out.h != 3 || out.c != 2)
    {
        fprintf(stderr, "consumer: wrong output shape %d x %d x %d (dims %d)\n", out.w, out.h, out.c, out.dims);
        return 1;
    }
    int bad = 0;
    for (int q = 0; q < out.c; q++)
    {
        const float* x = in.channel(q);
        const float* y = out.channel(q);
        for (int i = 0; i < out.w * out.h; i++)
        {
            float want = x[i] > 0.f ? x[i] : 0.f;
            if (y[i] != want)
                bad++;
        }
    }
    if (bad)
    {
        fprintf(stderr, "consumer: %d wrong values\n", bad);
        return 1;
    }
    printf("consumer: ok\n");
    return 0;
}
