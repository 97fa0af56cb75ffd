#version 450
// Copy a box of (bw, bh, bd, bc) elements from src at (sx, sy, sz, sq) to dst
// at (dx, dy, dz, dq); both are elempack-1 tensors of (w, h, d, c). Concat,
// Slice and Crop are made of these.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { sfp s[]; };
// p.in_f32: src holds fp32 scalars (VkBlob::f32) in any variant, dst the
// variant's storage type (Concat of fp32 and fp16 inputs)
layout(std430, binding = 0) readonly buffer SrcF { float sf[]; };
layout(std430, binding = 1) writeonly buffer Dst { sfp o[]; };
layout(push_constant) uniform P
{
    int sw, sh, sd, dw, dh, dd;
    int bw, bh, bd, bc;
    int sx, sy, sz, sq;
    int dx, dy, dz, dq;
    int in_f32;
} p;

void main()
{
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int zq = int(gl_GlobalInvocationID.z);
    if (x >= p.bw || y >= p.bh || zq >= p.bd * p.bc)
        return;
    int z = zq % p.bd;
    int q = zq / p.bd;
    int si = (((p.sq + q) * p.sd + p.sz + z) * p.sh + p.sy + y) * p.sw + p.sx + x;
    int di = (((p.dq + q) * p.dd + p.dz + z) * p.dh + p.dy + y) * p.dw + p.dx + x;
    o[di] = p.in_f32 != 0 ? sfp(sf[si]) : s[si];
}
