#version 450
// Direct grouped convolution (Convolution, ConvolutionDepthWise) with the
// fused activation: one invocation per output element (x, y, out channel).
// Weights in ncnn order [outch][inch / group][kh][kw]; taps outside the input
// read pad_value.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) readonly buffer W { wfp wt[]; }; // the storage type (fp16 with fp16 storage)
layout(std430, binding = 2) readonly buffer B { float bias[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P
{
    int w, h, c, outw, outh, outc;
    int kw, kh, dw, dh, sw, sh, pl, pt;
    int group, bias_term, act;
    float p0, p1, pad_value;
    int ocb; // output channels per invocation: 1, or 4 when a group has at least 4 (the group's last block may have fewer)
} p;

void main()
{
    // each invocation computes a block of up to `ocb` (1 or 4) output channels
    // of one group at one position, so every input value loaded serves the
    // block's outputs; z = group * blocks_per_group + block
    int ox = int(gl_GlobalInvocationID.x);
    int oy = int(gl_GlobalInvocationID.y);
    int inch_g = p.c / p.group;
    int outch_g = p.outc / p.group;
    int bpg = (outch_g + p.ocb - 1) / p.ocb;
    int g = int(gl_GlobalInvocationID.z) / bpg;
    int blk = int(gl_GlobalInvocationID.z) - g * bpg;
    if (ox >= p.outw || oy >= p.outh || g >= p.group)
        return;
    int oc0 = g * outch_g + blk * p.ocb;
    int n = min(p.ocb, outch_g - blk * p.ocb); // channels of this block
    int ksize = inch_g * p.kh * p.kw;
    // a short last block repeats its last channel's weights (sums not stored)
    int wo1 = min(1, n - 1) * ksize, wo2 = min(2, n - 1) * ksize, wo3 = min(3, n - 1) * ksize;
    // float sums in every variant: fp16 accumulation of a few hundred taps
    // missed the layer tests' fp16 tolerance by 2x (cancellation)
    float sum[4];
    for (int j = 0; j < 4; j++)
        sum[j] = (j < n && p.bias_term != 0) ? bias[oc0 + j] : 0.0;
    const float pad_value = p.pad_value;
    int wbase = oc0 * ksize;
    int x0 = ox * p.sw - p.pl;
    int y0 = oy * p.sh - p.pt;
    for (int icl = 0; icl < inch_g; icl++)
    {
        int ic = g * inch_g + icl;
        int abase = ic * p.h * p.w;
        for (int ky = 0; ky < p.kh; ky++)
        {
            int y = y0 + ky * p.dh;
            bool yin = y >= 0 && y < p.h;
            for (int kx = 0; kx < p.kw; kx++)
            {
                int x = x0 + kx * p.dw;
                float v = (yin && x >= 0 && x < p.w) ? loadf(a, abase + y * p.w + x) : pad_value;
                int k = wbase + (icl * p.kh + ky) * p.kw + kx;
                sum[0] += v * float(wt[k]);
                if (p.ocb == 4)
                {
                    sum[1] += v * float(wt[k + wo1]);
                    sum[2] += v * float(wt[k + wo2]);
                    sum[3] += v * float(wt[k + wo3]);
                }
            }
        }
    }
    for (int j = 0; j < n; j++)
        store1(b, ((oc0 + j) * p.outh + oy) * p.outw + ox, activate(sum[j], p.act, p.p0, p.p1));
}
