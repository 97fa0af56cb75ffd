#version 450
// out[i] = activate(in[i]) for the standalone activation layers
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int n; int type; float p0; float p1; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    store1(b, i, activate(loadf(a, i), p.type, p.p0, p.p1));
}
