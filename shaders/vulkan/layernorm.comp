#version 450
// LayerNorm: span i is elements [i * span, (i + 1) * span) of the contiguous
// elempack-1 tensor; mean, then variance of the centred values (as the
// reference), y = (x * a + b) [* gamma + beta] with a = 1 / sqrt(var + eps);
// float sums in every variant
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
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
    int s = int(gl_GlobalInvocationID.x);
    if (s >= p.nspans)
        return;
    int base = s * p.span;
    float sum = 0.0;
    for (int i = 0; i < p.span; i++)
        sum += loadf(x, base + i);
    float mean = sum / float(p.span);
    float sqsum = 0.0;
    for (int i = 0; i < p.span; i++)
    {
        float v = loadf(x, base + i) - mean;
        sqsum += v * v;
    }
    float a = 1.0 / sqrt(sqsum / float(p.span) + p.eps);
    float b = -mean * a;
    for (int i = 0; i < p.span; i++)
    {
        float v = loadf(x, base + i) * a + b;
        store1(y, base + i, p.affine != 0 ? v * gamma[i] + beta[i] : v);
    }
}
