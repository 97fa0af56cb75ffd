#version 450
// out = a op b elementwise: op 0 prod, 1 sum (ca * a + cb * b), 2 max
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer A { sfp a[]; };
layout(std430, binding = 1) readonly buffer B { sfp bb[]; };
layout(std430, binding = 2) writeonly buffer Out { sfp o[]; };
layout(push_constant) uniform P { int n, op; float ca, cb; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    afp x = load1(a, i);
    afp y = load1(bb, i);
    store1(o, i, p.op == 0 ? x * y : (p.op == 1 ? afp(p.ca) * x + afp(p.cb) * y : max(x, y)));
}
