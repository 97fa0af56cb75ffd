#version 450
// InnerProduct: out[row][o] = act(bias[o] + sum_i in[row][i] * w[o][i]);
// one invocation per (output, row)
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) readonly buffer W { wfp wt[]; }; // the storage type (fp16 with fp16 storage)
layout(std430, binding = 2) readonly buffer B { float bias[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int n, outn, rows, bias_term, act; float p0, p1; } p;

void main()
{
    int o = int(gl_GlobalInvocationID.x);
    int r = int(gl_GlobalInvocationID.y);
    if (o >= p.outn || r >= p.rows)
        return;
    // float sum in every variant (rows of thousands of terms)
    float sum = p.bias_term != 0 ? bias[o] : 0.0;
    int ab = r * p.n;
    int wb = o * p.n;
    for (int i = 0; i < p.n; i++)
        sum += loadf(a, ab + i) * float(wt[wb + i]);
    store1(b, r * p.outn + o, activate(sum, p.act, p.p0, p.p1));
}
