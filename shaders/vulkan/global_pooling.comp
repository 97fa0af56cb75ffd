#version 450
// Global max / average pooling: one work group of 64 invocations per scalar
// channel q (pooling.comp gave a whole plane to one invocation, with the
// other 63 of its 8x8 group idle); each invocation covers the positions
// lane, lane + 64, ..., then a reduction in shared memory. Input elempack ip
// (channel q of a position at ((q / ip) * plane + pos) * ip + q % ip), output
// elempack 1.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "reduce.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 64 x 1 x 1
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int plane, c, ip, is_max; } p;

void main()
{
    int q = int(gl_WorkGroupID.x);
    int lane = int(gl_LocalInvocationID.x);
    // float in every variant: an average adds a whole plane; the lowest float
    // is the identity of max
    float v = p.is_max != 0 ? -3.402823466e+38 : 0.0;
    if (q < p.c)
    {
        int base = (q / p.ip) * p.plane * p.ip + q % p.ip;
        for (int pos = lane; pos < p.plane; pos += 64)
        {
            float t = loadf(a, base + pos * p.ip);
            v = p.is_max != 0 ? max(v, t) : v + t;
        }
    }
    v = p.is_max != 0 ? kite_max64(lane, v) : kite_sum64(lane, v); // is_max: uniform
    if (lane == 0 && q < p.c)
        store1(b, q, p.is_max != 0 ? v : v / float(p.plane));
}
