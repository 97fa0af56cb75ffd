// Reductions over the 64 invocations of a work group (local size 64 x 1 x 1):
// every invocation gets the result, and kite_part is free again when these
// return. Every invocation of the group must call them (they hold barriers).
#ifndef KITE_SHADER_REDUCE_H
#define KITE_SHADER_REDUCE_H

shared float kite_part[64];

float kite_sum64(int lane, float v)
{
    kite_part[lane] = v;
    barrier();
    for (int step = 32; step > 0; step >>= 1)
    {
        if (lane < step)
            kite_part[lane] += kite_part[lane + step];
        barrier();
    }
    float r = kite_part[0];
    barrier();
    return r;
}

float kite_max64(int lane, float v)
{
    kite_part[lane] = v;
    barrier();
    for (int step = 32; step > 0; step >>= 1)
    {
        if (lane < step)
            kite_part[lane] = max(kite_part[lane], kite_part[lane + step]);
        barrier();
    }
    float r = kite_part[0];
    barrier();
    return r;
}

#endif
