#version 450
// LRN (ncnn's two regions) on an elempack-1 (w, h, c) tensor:
// across channels: x * (bias + alpha / size * sum of x^2 over channels
// q - size/2 .. q + size/2)^-beta; within channel: the same over a
// size x size window starting at (x - size/2, y - size/2), alpha / size^2.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Src { sfp s[]; };
layout(std430, binding = 1) writeonly buffer Dst { sfp o[]; };
layout(push_constant) uniform P
{
    int w, h, c;
    int region; // 0 across channels, 1 within channel
    int size;
    float alpha_div_size, beta, bias;
} p;

void main()
{
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    int q = int(gl_GlobalInvocationID.z);
    if (x >= p.w || y >= p.h || q >= p.c)
        return;
    int plane = p.w * p.h;
    float ss = 0.0;
    if (p.region == 0)
    {
        for (int k = q - p.size / 2; k <= q + p.size / 2; k++)
        {
            if (k < 0 || k >= p.c)
                continue;
            float v = loadf(s, k * plane + y * p.w + x);
            ss += v * v;
        }
    }
    else
    {
        int pad = p.size / 2;
        for (int yy = y - pad; yy < y - pad + p.size; yy++)
        {
            if (yy < 0 || yy >= p.h)
                continue;
            for (int xx = x - pad; xx < x - pad + p.size; xx++)
            {
                if (xx < 0 || xx >= p.w)
                    continue;
                float v = loadf(s, q * plane + yy * p.w + xx);
                ss += v * v;
            }
        }
    }
    int i = q * plane + y * p.w + x;
    store1(o, i, loadf(s, i) * pow(p.bias + p.alpha_div_size * ss, -p.beta));
}
