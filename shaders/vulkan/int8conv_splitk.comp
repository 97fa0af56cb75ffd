#version 450
// The second half of a split-K int8conv_gemm.comp: invocation (pixel,
// output channel) adds the p.splits int32 partial sums
// part[(split * outc + oc) * plane + pos] and finishes as the CPU does
// (int8.h kite_int8_finish: dequantize, bias, activation, requantize).
// Output channel oc at pixel pos is scalar ((oc / op) * plane + pos) * op +
// oc % op of the output (elempack op = 1, 4 or 8).
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Part { int part[]; };
layout(std430, binding = 1) readonly buffer A { float args[]; };
layout(std430, binding = 2) writeonly buffer Out { sfp b[]; };
// p.of32 (a float output in a session with fp16 storage): fp32 scalars (VkBlob::f32)
layout(std430, binding = 2) writeonly buffer OutF { float bf[]; };
layout(push_constant) uniform P
{
    int plane, outc, splits, op;
    int act;
    float p0, p1;
    int numerics, requant;
    int of32;
} p;

void main()
{
    int pos = int(gl_GlobalInvocationID.x);
    int oc = int(gl_GlobalInvocationID.y);
    if (pos >= p.plane || oc >= p.outc)
        return;
    int sum = 0;
    for (int s = 0; s < p.splits; s++)
        sum += part[(s * p.outc + oc) * p.plane + pos];
    float v = kite_int8_finish(sum, args[oc], args[p.outc + oc], args[2 * p.outc + oc], p.numerics, p.requant, p.act, p.p0,
                               p.p1);
    int o = ((oc / p.op) * p.plane + pos) * p.op + oc % p.op;
    if (p.of32 != 0)
        bf[o] = v;
    else
        store1(b, o, v);
}
