#version 450
// out = x * b[ch] + a[ch] per channel (BatchNorm's folded scale and shift),
// any elempack: element i is lane i % pack of packed element i / pack, whose
// channel group is (i / pack) / plane (plane: elements per channel, 1 for a
// 1-D blob, w for a 2-D one, w*h*d otherwise).
#extension GL_GOOGLE_include_directive : require
#include "types.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp x[]; };
// p.in_f32: the input holds fp32 scalars (VkBlob::f32) in any variant
layout(std430, binding = 0) readonly buffer InF { float xf[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp y[]; };
layout(std430, binding = 2) readonly buffer A { float a[]; };
layout(std430, binding = 3) readonly buffer B { float b[]; };
layout(push_constant) uniform P
{
    int n;
    int plane;
    int pack;
    int in_f32;
} p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    if (i >= p.n)
        return;
    int ch = ((i / p.pack) / p.plane) * p.pack + i % p.pack;
    store1(y, i, (p.in_f32 != 0 ? xf[i] : loadf(x, i)) * b[ch] + a[ch]);
}
