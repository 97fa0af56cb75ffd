#version 450
// InnerProduct: out[row][o] = act(bias[o] + sum_i in[row][i] * w[o][i]);
// one work group of 64 invocations per (output, row): each invocation sums
// the elements lane, lane + 64, ... (neighbouring invocations read
// neighbouring weights: coalesced, where one invocation per output walked a
// row of its own and the GPU fetched a line per element), then a reduction in
// shared memory and the epilogue.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "reduce.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 64 x 1 x 1
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) readonly buffer W { wfp wt[]; }; // the storage type (fp16 with fp16 storage)
layout(std430, binding = 2) readonly buffer B { float bias[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int n, outn, rows, bias_term, act; float p0, p1; } p;

void main()
{
    int o = int(gl_WorkGroupID.x);
    int r = int(gl_WorkGroupID.y);
    int lane = int(gl_LocalInvocationID.x);
    // float sums in every variant (rows of thousands of terms)
    float sum = 0.0;
    if (o < p.outn && r < p.rows)
    {
        int ab = r * p.n;
        int wb = o * p.n;
        for (int i = lane; i < p.n; i += 64)
            sum += loadf(a, ab + i) * float(wt[wb + i]);
    }
    sum = kite_sum64(lane, sum);
    if (lane == 0 && o < p.outn && r < p.rows)
        store1(b, r * p.outn + o, activate(sum + (p.bias_term != 0 ? bias[o] : 0.0), p.act, p.p0, p.p1));
}
