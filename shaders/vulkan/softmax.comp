#version 450
// Softmax along one axis: the tensor is viewed as (outer, n, inner); one
// invocation per (inner, outer) line
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int outer, n, inner; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    int o = int(gl_GlobalInvocationID.y);
    if (i >= p.inner || o >= p.outer)
        return;
    int base = o * p.n * p.inner + i;
    // float in every variant (exp and the sum)
    float m = loadf(a, base);
    for (int k = 1; k < p.n; k++)
        m = max(m, loadf(a, base + k * p.inner));
    float s = 0.0;
    for (int k = 0; k < p.n; k++)
        s += exp(loadf(a, base + k * p.inner) - m);
    for (int k = 0; k < p.n; k++)
        store1(b, base + k * p.inner, exp(loadf(a, base + k * p.inner) - m) / s);
}
