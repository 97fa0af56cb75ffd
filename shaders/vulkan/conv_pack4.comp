#version 450
// Convolution / ConvolutionDepthWise on elempack-4 or -8 blobs (channels in
// groups of 4, one vec4 per position; elempack 8 holds two such groups as two
// consecutive vec4, p.isub / p.osub = 2) with the fused activation. The 4-channel group
// q4 at position pos is vec4 ((q4 / sub) * plane + pos) * sub + q4 % sub. Each invocation
// computes one output vec4 (4 output channels) at NX consecutive x positions
// (NX = 1 or 4, p.nx), so every weight loaded serves NX outputs and every
// input vec4 serves 4 output channels.
// Weights (host-arranged by the driver; fp32, fp16 with fp16 storage):
//   dense/grouped: for output pack oq, input pack icl of its group, tap
//     (ky, kx): 4 vec4 columns wt[k * 4 + il] (k = ((oq * inq_g + icl) * kh +
//     ky) * kw + kx) holding the weights of input lane il for the 4 output
//     lanes, so out += in.x * col0 + in.y * col1 + in.z * col2 + in.w * col3
//   depth-wise (p.dw_mode): wt[(oq * kh + ky) * kw + kx] is the vec4 of the
//     4 channels' tap
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfpvec4 a[]; };
layout(std430, binding = 1) readonly buffer W { wfpvec4 wt[]; }; // the storage type (fp16 with fp16 storage)
layout(std430, binding = 2) readonly buffer B { vec4 bias[]; };
layout(std430, binding = 3) writeonly buffer Out { sfpvec4 b[]; };
layout(push_constant) uniform P
{
    int w, h, c4, outw, outh, outc4;
    int kw, kh, dlw, dlh, sw, sh, pl, pt;
    int group, bias_term, act;
    float p0, p1, pad_value;
    int dw_mode, nx;
    int isub, osub; // vec4 per input / output element: 1 (elempack 4) or 2 (8)
} p;

#define NXMAX 4

vec4 act4(vec4 v)
{
    return vec4(activate(v.x, p.act, p.p0, p.p1), activate(v.y, p.act, p.p0, p.p1),
                activate(v.z, p.act, p.p0, p.p1), activate(v.w, p.act, p.p0, p.p1));
}

void main()
{
    int ox0 = int(gl_GlobalInvocationID.x) * p.nx;
    int oy = int(gl_GlobalInvocationID.y);
    int oq = int(gl_GlobalInvocationID.z);
    if (ox0 >= p.outw || oy >= p.outh || oq >= p.outc4)
        return;
    // float sums in every variant (see conv.comp)
    vec4 sum[NXMAX];
    vec4 b0 = p.bias_term != 0 ? bias[oq] : vec4(0.0);
    for (int j = 0; j < NXMAX; j++)
        sum[j] = b0;
    const vec4 padv = vec4(p.pad_value);
    int y0 = oy * p.sh - p.pt;
    if (p.dw_mode != 0)
    {
        int abase = (oq / p.isub) * p.h * p.w * p.isub + oq % p.isub;
        for (int ky = 0; ky < p.kh; ky++)
        {
            int y = y0 + ky * p.dlh;
            bool yin = y >= 0 && y < p.h;
            for (int kx = 0; kx < p.kw; kx++)
            {
                vec4 k = vec4(wt[(oq * p.kh + ky) * p.kw + kx]);
                for (int j = 0; j < p.nx; j++)
                {
                    int x = (ox0 + j) * p.sw - p.pl + kx * p.dlw;
                    vec4 v = (yin && x >= 0 && x < p.w) ? loadf4(a, abase + (y * p.w + x) * p.isub) : padv;
                    sum[j] += v * k;
                }
            }
        }
    }
    else
    {
        int inq_g = p.c4 / p.group;
        int outq_g = p.outc4 / p.group;
        int g = oq / outq_g;
        for (int icl = 0; icl < inq_g; icl++)
        {
            int iq = g * inq_g + icl;
            int abase = (iq / p.isub) * p.h * p.w * p.isub + iq % p.isub;
            for (int ky = 0; ky < p.kh; ky++)
            {
                int y = y0 + ky * p.dlh;
                bool yin = y >= 0 && y < p.h;
                for (int kx = 0; kx < p.kw; kx++)
                {
                    int k = (((oq * inq_g + icl) * p.kh + ky) * p.kw + kx) * 4;
                    vec4 w0 = vec4(wt[k]);
                    vec4 w1 = vec4(wt[k + 1]);
                    vec4 w2 = vec4(wt[k + 2]);
                    vec4 w3 = vec4(wt[k + 3]);
                    for (int j = 0; j < p.nx; j++)
                    {
                        int x = (ox0 + j) * p.sw - p.pl + kx * p.dlw;
                        vec4 v = (yin && x >= 0 && x < p.w) ? loadf4(a, abase + (y * p.w + x) * p.isub) : padv;
                        sum[j] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
                    }
                }
            }
        }
    }
    int obase = (oq / p.osub) * p.outh * p.outw * p.osub + oq % p.osub;
    for (int j = 0; j < p.nx; j++)
    {
        if (ox0 + j < p.outw)
            store4(b, obase + (oy * p.outw + ox0 + j) * p.osub, act4(sum[j]));
    }
}
