#version 450
// Softmax along the innermost axis (lines of n contiguous values, the
// classifier's and attention's case): one work group of 64 invocations per
// line, each covering the values lane, lane + 64, ...; the maximum and the
// sum of exponentials reduced in shared memory. softmax.comp gives a line
// to one invocation, which suits the strided axes.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "reduce.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 64 x 1 x 1
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P { int outer, n, inner; } p; // inner is 1

void main()
{
    int o = int(gl_WorkGroupID.x);
    int lane = int(gl_LocalInvocationID.x);
    bool live = o < p.outer; // uniform over the group: every invocation reaches the barriers
    int base = o * p.n;
    // float in every variant (exp and the sum)
    float m = -3.402823466e+38;
    if (live)
        for (int k = lane; k < p.n; k += 64)
            m = max(m, loadf(a, base + k));
    m = kite_max64(lane, m);
    float s = 0.0;
    if (live)
        for (int k = lane; k < p.n; k += 64)
            s += exp(loadf(a, base + k) - m);
    s = kite_sum64(lane, s);
    if (live)
        for (int k = lane; k < p.n; k += 64)
            store1(b, base + k, exp(loadf(a, base + k) - m) / s);
}
