#version 450
// int8 Convolution / ConvolutionDepthWise (int8_scale_term) with the CPU's
// arithmetic (int8.h): each input tap quantized with its group's bottom
// scale unless the input already holds int8 values, taps outside the input
// read the int8 pad value, int32 sums, then the epilogue per output channel.
// Weights [outch][inch / group][kh][kw] as integer-valued floats; `ocb`
// (1 or 4) output channels of one group per invocation.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) readonly buffer W { float wt[]; };
layout(std430, binding = 2) readonly buffer A { float args[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P
{
    int w, h, c, outw, outh, outc;
    int kw, kh, dw, dh, sw, sh, pl, pt;
    int group, act;
    float p0, p1;
    int pad_q, in_int8, numerics, requant, ocb;
} p;

void main()
{
    int ox = int(gl_GlobalInvocationID.x);
    int oy = int(gl_GlobalInvocationID.y);
    int oc0 = int(gl_GlobalInvocationID.z) * p.ocb;
    if (ox >= p.outw || oy >= p.outh || oc0 >= p.outc)
        return;
    int inch_g = p.c / p.group;
    int outch_g = p.outc / p.group;
    int g = oc0 / outch_g;
    int ksize = inch_g * p.kh * p.kw;
    float bscale = args[3 * p.outc + oc0];
    ivec4 sum = ivec4(0);
    int wbase = oc0 * ksize;
    int x0 = ox * p.sw - p.pl;
    int y0 = oy * p.sh - p.pt;
    for (int icl = 0; icl < inch_g; icl++)
    {
        int abase = (g * inch_g + icl) * p.h * p.w;
        for (int ky = 0; ky < p.kh; ky++)
        {
            int y = y0 + ky * p.dh;
            bool yin = y >= 0 && y < p.h;
            for (int kx = 0; kx < p.kw; kx++)
            {
                int x = x0 + kx * p.dw;
                int q = p.pad_q;
                if (yin && x >= 0 && x < p.w)
                {
                    float v = loadf(a, abase + y * p.w + x);
                    q = p.in_int8 != 0 ? int(v) : kite_quantize(v, bscale);
                }
                int k = wbase + (icl * p.kh + ky) * p.kw + kx;
                sum.x += q * int(wt[k]);
                if (p.ocb == 4)
                {
                    sum.y += q * int(wt[k + ksize]);
                    sum.z += q * int(wt[k + 2 * ksize]);
                    sum.w += q * int(wt[k + 3 * ksize]);
                }
            }
        }
    }
    for (int j = 0; j < p.ocb; j++)
    {
        int oc = oc0 + j;
        store1(b, (oc * p.outh + oy) * p.outw + ox,
               kite_int8_finish(sum[j], args[oc], args[p.outc + oc], args[2 * p.outc + oc], p.numerics, p.requant, p.act, p.p0, p.p1));
    }
}
