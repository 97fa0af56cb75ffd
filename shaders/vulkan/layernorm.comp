#version 450
// LayerNorm: span i is elements [i * span, (i + 1) * span) of the contiguous
// elempack-1 tensor; mean, then variance of the centred values (as the
// reference), y = (x * a + b) [* gamma + beta] with a = 1 / sqrt(var + eps);
// float sums in every variant. One work group of 64 invocations per span:
// each sums the elements lane, lane + 64, ... (neighbouring invocations read
// neighbouring values), the two sums are reduced in shared memory, and every
// invocation writes its elements.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "reduce.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 64 x 1 x 1
layout(std430, binding = 0) readonly buffer In { sfp x[]; };
layout(std430, binding = 1) readonly buffer G { float gamma[]; };
layout(std430, binding = 2) readonly buffer B { float beta[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp y[]; };
layout(push_constant) uniform P
{
    int nspans, span, affine;
    float eps;
} p;

void main()
{
    int s = int(gl_WorkGroupID.x);
    int lane = int(gl_LocalInvocationID.x);
    bool live = s < p.nspans; // uniform over the group: every invocation reaches the barriers
    int base = s * p.span;
    float sum = 0.0;
    if (live)
        for (int i = lane; i < p.span; i += 64)
            sum += loadf(x, base + i);
    float mean = kite_sum64(lane, sum) / float(p.span);
    float sqsum = 0.0;
    if (live)
        for (int i = lane; i < p.span; i += 64)
        {
            float v = loadf(x, base + i) - mean;
            sqsum += v * v;
        }
    float a = 1.0 / sqrt(kite_sum64(lane, sqsum) / float(p.span) + p.eps);
    float b = -mean * a;
    if (live)
        for (int i = lane; i < p.span; i += 64)
        {
            float v = loadf(x, base + i) * a + b;
            store1(y, base + i, p.affine != 0 ? v * gamma[i] + beta[i] : v);
        }
}
