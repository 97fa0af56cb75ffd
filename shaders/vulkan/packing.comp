#version 450
// convert_packing on the device: a blob of `c` scalar channels (planes of
// `plane` elements) from elempack sp to elempack dp (1, 4 or 8, each dividing c
// when packed). Scalar channel ch at position i lives at
// ((ch / pack) * plane + i) * pack + ch % pack. Invocation (i, ch).
#extension GL_GOOGLE_include_directive : require
#include "types.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { sfp s[]; };
layout(std430, binding = 1) writeonly buffer Dst { sfp o[]; };
// Output channel ch takes input channel (ch % g) * cpg + ch / g: g = 1, cpg =
// c copies; other values shuffle the channels (ShuffleChannel on packed blobs).
layout(push_constant) uniform P { int plane, c, sp, dp, g, cpg; } p;

void main()
{
    int i = int(gl_GlobalInvocationID.x);
    int ch = int(gl_GlobalInvocationID.y);
    if (i >= p.plane || ch >= p.c)
        return;
    int sc = (ch % p.g) * p.cpg + ch / p.g;
    o[((ch / p.dp) * p.plane + i) * p.dp + ch % p.dp] = s[((sc / p.sp) * p.plane + i) * p.sp + sc % p.sp];
}
