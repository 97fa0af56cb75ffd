#version 450
// out[i] = activate(in[i]) for the standalone activation layers
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
// the same bindings as vec4s: with p.use4 != 0 (n % 4 == 0, every packed
// blob) invocation i does elements 4i..4i+3 (one 8-byte load in fp16)
layout(std430, binding = 0) readonly buffer In4 { sfpvec4 a4[]; };
layout(std430, binding = 1) writeonly buffer Out4 { sfpvec4 b4[]; };
layout(push_constant) uniform P { int n; int type; float p0; float p1; int use4; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (p.use4 != 0)
    {
        if (i >= p.n / 4)
            return;
        vec4 v = loadf4(a4, i);
        store4(b4, i, vec4(activate(v.x, p.type, p.p0, p.p1), activate(v.y, p.type, p.p0, p.p1),
                           activate(v.z, p.type, p.p0, p.p1), activate(v.w, p.type, p.p0, p.p1)));
        return;
    }
    if (i >= p.n)
        return;
    store1(b, i, activate(loadf(a, i), p.type, p.p0, p.p1));
}
