#version 450
// Interp (layer/gpu/interp_plan.h): invocation (x, y, c) makes output
// element (c, y, x) from the taps of both axes, rows first, then blended,
// in float, as the reference does. Input and output are elempack 1.
#extension GL_GOOGLE_include_directive : require
#include "types.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp s[]; };
layout(std430, binding = 1) readonly buffer Taps { float t[]; };
layout(std430, binding = 2) writeonly buffer Out { sfp o[]; };
layout(push_constant) uniform P
{
    int C, H, W, OH, OW, ntx, nty;
} p;

void main()
{
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y), c = int(gl_GlobalInvocationID.z);
    if (x >= p.OW || y >= p.OH || c >= p.C)
        return;
    int xa = p.OW;                    // x alphas
    int yo = p.OW * (1 + p.ntx);      // y offsets
    int ya = yo + p.OH;               // y alphas
    int sx0 = int(t[x]);
    int sy0 = int(t[yo + y]);
    float v = 0.0;
    for (int ky = 0; ky < p.nty; ky++)
    {
        int sy = clamp(sy0 + ky, 0, p.H - 1);
        float row = 0.0;
        for (int kx = 0; kx < p.ntx; kx++)
        {
            int sx = clamp(sx0 + kx, 0, p.W - 1);
            row += loadf(s, (c * p.H + sy) * p.W + sx) * t[xa + x * p.ntx + kx];
        }
        v += row * t[ya + y * p.nty + ky];
    }
    store1(o, (c * p.OH + y) * p.OW + x, v);
}
