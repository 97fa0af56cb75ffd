#version 450
// out = a op b elementwise: op 0 prod, 1 sum (ca * a + cb * b), 2 max
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { sfp a[]; };
layout(std430, binding = 1) readonly buffer B { sfp bb[]; };
layout(std430, binding = 2) writeonly buffer Out { sfp o[]; };
// the same bindings as vec4s: with p.use4 != 0 (n % 4 == 0, every packed
// blob) invocation i does elements 4i..4i+3 (f16vec4 math in the fp16a variant)
layout(std430, binding = 0) readonly buffer A4 { sfpvec4 a4[]; };
layout(std430, binding = 1) readonly buffer B4 { sfpvec4 bb4[]; };
layout(std430, binding = 2) writeonly buffer Out4 { sfpvec4 o4[]; };
layout(push_constant) uniform P { int n, op; float ca, cb; int use4; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (p.use4 != 0)
    {
        if (i >= p.n / 4)
            return;
        afpvec4 x = load4(a4, i);
        afpvec4 y = load4(bb4, i);
        store4(o4, i, p.op == 0 ? x * y : (p.op == 1 ? afp(p.ca) * x + afp(p.cb) * y : max(x, y)));
        return;
    }
    if (i >= p.n)
        return;
    afp x = load1(a, i);
    afp y = load1(bb, i);
    store1(o, i, p.op == 0 ? x * y : (p.op == 1 ? afp(p.ca) * x + afp(p.cb) * y : max(x, y)));
}
