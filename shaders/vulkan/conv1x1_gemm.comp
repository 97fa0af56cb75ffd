#version 450
// 1x1 Convolution (group 1, no padding, any stride) on elempack-4/8 blobs as
// a matrix product out[oc][pixel] = sum_ic W[oc][ic] * in[ic][pixel] through
// shared-memory tiles. A work group of 16 x 16 invocations computes 64
// output channels x 64 output pixels; invocation (tx, ty) holds output
// channels 4ty..4ty+3 of the tile (one vec4) at pixels tx + 16j, j < 4.
// The input channels advance 16 at a time: each invocation stages one input
// vec4 (4 channels at one pixel: one packed element, or half of one by 8)
// and one weight vec4 per step.
// The 4-channel group q4 at position pos is vec4 ((q4 / sub) * plane + pos)
// * sub + q4 % sub (sub = 1 for elempack 4, 2 for 8: p.isub / p.osub).
// Weights (the driver's pack4 order of conv_pack4.comp with one tap): for
// output group oq and input channel ic, wt[oq * C + ic] is the vec4 over the
// 4 output lanes (C = input channels). Sums are float in every variant.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 16 x 16 x 1
layout(std430, binding = 0) readonly buffer In { sfpvec4 a[]; };
layout(std430, binding = 1) readonly buffer W { wfpvec4 wt[]; }; // the storage type (fp16 with fp16 storage)
layout(std430, binding = 2) readonly buffer B { vec4 bias[]; };
layout(std430, binding = 3) writeonly buffer Out { sfpvec4 b[]; };
layout(push_constant) uniform P
{
    int w, h, c4, outw, outh, outc4;
    int sw, sh, bias_term, act;
    float p0, p1;
    int isub, osub;
} p;

shared vec4 Is[4][64]; // [input group of the step][pixel of the tile]
shared vec4 Ws[16][17]; // [input channel of the step][output group of the tile], padded

vec4 act4(vec4 v)
{
    return vec4(activate(v.x, p.act, p.p0, p.p1), activate(v.y, p.act, p.p0, p.p1),
                activate(v.z, p.act, p.p0, p.p1), activate(v.w, p.act, p.p0, p.p1));
}

void main()
{
    int tx = int(gl_LocalInvocationID.x);
    int ty = int(gl_LocalInvocationID.y);
    int lid = ty * 16 + tx;
    int n = p.outw * p.outh;
    int j0 = int(gl_WorkGroupID.x) * 64;
    int oq0 = int(gl_WorkGroupID.y) * 16;
    int plane = p.w * p.h;
    int cin = p.c4 * 4;
    // this invocation's staging: input vec4 (group lid / 64, pixel lid % 64),
    // weight vec4 (input channel lid % 16, output group lid / 16)
    int sj = j0 + lid % 64;
    int spos = sj < n ? (sj / p.outw) * p.sh * p.w + (sj % p.outw) * p.sw : 0;
    int sg = lid / 64;
    int wk = lid % 16;
    int woq = oq0 + lid / 16;
    vec4 acc[4];
    for (int j = 0; j < 4; j++)
        acc[j] = vec4(0.0);
    for (int k4 = 0; k4 < p.c4; k4 += 4)
    {
        int q4 = k4 + sg;
        Is[sg][lid % 64] = (sj < n && q4 < p.c4) ? loadf4(a, ((q4 / p.isub) * plane + spos) * p.isub + q4 % p.isub) : vec4(0.0);
        int ic = k4 * 4 + wk;
        Ws[wk][lid / 16] = (woq < p.outc4 && ic < cin) ? vec4(wt[woq * cin + ic]) : vec4(0.0);
        barrier();
        for (int g = 0; g < 4; g++)
        {
            vec4 w0 = Ws[g * 4][ty];
            vec4 w1 = Ws[g * 4 + 1][ty];
            vec4 w2 = Ws[g * 4 + 2][ty];
            vec4 w3 = Ws[g * 4 + 3][ty];
            for (int j = 0; j < 4; j++)
            {
                vec4 v = Is[g][tx + 16 * j];
                acc[j] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
            }
        }
        barrier();
    }
    int oq = oq0 + ty;
    if (oq >= p.outc4)
        return;
    vec4 b0 = p.bias_term != 0 ? bias[oq] : vec4(0.0);
    int obase = (oq / p.osub) * n * p.osub + oq % p.osub;
    for (int j = 0; j < 4; j++)
    {
        int jj = j0 + tx + 16 * j;
        if (jj < n)
            store4(b, obase + jj * p.osub, act4(acc[j] + b0));
    }
}
