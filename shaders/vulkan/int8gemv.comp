#version 450
// int8 InnerProduct (int8_scale_term) with the CPU's arithmetic (int8.h):
// out[row][o] = act(sum_i q[row][i] * w[o][i] * scale_in[o] + bias[o]) on an
// input quantized by int8quant.comp (q[k * rows + row]: values 4k..4k+3 of
// the row, one per byte) and int8 weights packed 4 per uint (row o: words
// o * n4 .. o * n4 + n4 - 1, 0 beyond n). One work group of 64 invocations
// per (output, row): strided int32 partial sums, reduced in shared memory
// (exact, so the order does not matter), then the epilogue. Four products
// a word through int8.h's kite_sdot4: the "int8gemv_dot4" variant (packed
// integer dot product) where the device has it.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 64 x 1 x 1
layout(std430, binding = 0) readonly buffer Q { uint qa[]; };
layout(std430, binding = 1) readonly buffer W { uint wt[]; };
layout(std430, binding = 2) readonly buffer A { float args[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int n4, outn, rows, act; float p0, p1; } p;

shared int part[64];

void main()
{
    int o = int(gl_WorkGroupID.x);
    int r = int(gl_WorkGroupID.y);
    int lane = int(gl_LocalInvocationID.x);
    int s = 0;
    if (o < p.outn && r < p.rows)
    {
        int wb = o * p.n4;
        for (int k = lane; k < p.n4; k += 64)
            s = kite_sdot4(int(qa[k * p.rows + r]), int(wt[wb + k]), s);
    }
    part[lane] = s;
    barrier();
    for (int step = 32; step > 0; step >>= 1)
    {
        if (lane < step)
            part[lane] += part[lane + step];
        barrier();
    }
    if (lane == 0 && o < p.outn && r < p.rows)
        store1(b, r * p.outn + o, kite_int8_finish(part[0], args[o], args[p.outn + o], 1.0, 0, 0, p.act, p.p0, p.p1));
}
