#version 450
// int8 InnerProduct (int8_scale_term) with the CPU's arithmetic (int8.h):
// out[row][o] = act(sum_i q(in[row][i]) * w[o][i] * scale_in[o] + bias[o]),
// q quantizing with the bottom scale unless the input holds int8 values;
// weights as integer-valued floats; one invocation per (output, row)
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) readonly buffer W { float wt[]; };
layout(std430, binding = 2) readonly buffer A { float args[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int n, outn, rows, in_int8, act; float p0, p1; } p;

void main()
{
    int o = int(gl_GlobalInvocationID.x);
    int r = int(gl_GlobalInvocationID.y);
    if (o >= p.outn || r >= p.rows)
        return;
    float bscale = args[3 * p.outn + o];
    int sum = 0;
    int ab = r * p.n;
    int wb = o * p.n;
    for (int i = 0; i < p.n; i++)
    {
        float v = loadf(a, ab + i);
        int q = p.in_int8 != 0 ? int(v) : kite_quantize(v, bscale);
        sum += q * int(wt[wb + i]);
    }
    store1(b, r * p.outn + o, kite_int8_finish(sum, args[o], args[p.outn + o], 1.0, 0, 0, p.act, p.p0, p.p1));
}
