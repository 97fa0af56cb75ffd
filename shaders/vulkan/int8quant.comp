#version 450
// Quantizes a blob for the packed int8 kernels (int8conv_q.comp,
// int8gemv.comp): invocation (position, quad) packs channels 4q..4q+3 at one
// position into one uint, lane l in bits 8l..8l+7 (two's complement), each
// value quantized with the CPU's float2int8 (int8.h kite_quantize) by the
// scale of its channel group (scales[c / cpg]), or taken as it is when the
// blob already holds int8 values; lanes beyond the channel count are 0.
// Out: q[quad * plane + position]. Element (c, position) of the input is
// scalar ((c / ep) * plane + position) * ep + c % ep: a blob of elempack
// 1/4/8 (p.in_f32: fp32 scalars, VkBlob::f32, in any variant), or (InnerProduct: ep = values per row, plane = rows) a row-major
// matrix whose rows are the positions.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 0) readonly buffer InF { float af[]; };
layout(std430, binding = 1) readonly buffer S { float scales[]; };
layout(std430, binding = 2) writeonly buffer Q { uint q[]; };
layout(push_constant) uniform P { int plane, c, ep, quads, cpg, in_int8, in_f32; } p;

void main()
{
    int pos = int(gl_GlobalInvocationID.x);
    int quad = int(gl_GlobalInvocationID.y);
    if (pos >= p.plane || quad >= p.quads)
        return;
    uint word = 0u;
    for (int l = 0; l < 4; l++)
    {
        int ch = quad * 4 + l;
        if (ch >= p.c)
            break;
        int e = ((ch / p.ep) * p.plane + pos) * p.ep + ch % p.ep;
        float v = p.in_f32 != 0 ? af[e] : loadf(a, e);
        int i = p.in_int8 != 0 ? int(v) : kite_quantize(v, scales[ch / p.cpg]);
        word |= uint(i & 255) << (8 * l);
    }
    q[quad * p.plane + pos] = word;
}
