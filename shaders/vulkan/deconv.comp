#version 450
// Grouped 2-D transposed convolution (DeconvolutionDepthWise) in gather form:
// invocation (ox, oy, oc) sums, over the input channels of its group and the
// taps whose stride grid lands on it, w[oc][ic][ky][kx] * in[ic][iy][ix]
// (iy * stride + ky * dilation - cut = oy), then bias and the fused
// activation. Input and output elempack 1; float arithmetic.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp s[]; };
layout(std430, binding = 1) readonly buffer W { wfp w[]; }; // the storage type (fp16 with fp16 storage)
layout(std430, binding = 2) readonly buffer Bias { float bias[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp o[]; };
layout(push_constant) uniform P
{
    int H, W, OC, OH, OW;
    int inch_g, outch_g;
    int kw, kh, dw, dh, sw, sh, cut_w, cut_h;
    int bias_term, act;
    float p0, p1;
} p;

void main()
{
    int ox = int(gl_GlobalInvocationID.x), oy = int(gl_GlobalInvocationID.y), oc = int(gl_GlobalInvocationID.z);
    if (ox >= p.OW || oy >= p.OH || oc >= p.OC)
        return;
    int grp = oc / p.outch_g;
    int maxk = p.kw * p.kh;
    float sum = p.bias_term != 0 ? bias[oc] : 0.0;
    for (int ic = 0; ic < p.inch_g; ic++)
    {
        int c = grp * p.inch_g + ic;
        int wbase = (oc * p.inch_g + ic) * maxk;
        for (int ky = 0; ky < p.kh; ky++)
        {
            int ty = oy + p.cut_h - ky * p.dh;
            if (ty < 0 || ty % p.sh != 0)
                continue;
            int iy = ty / p.sh;
            if (iy >= p.H)
                continue;
            for (int kx = 0; kx < p.kw; kx++)
            {
                int tx = ox + p.cut_w - kx * p.dw;
                if (tx < 0 || tx % p.sw != 0)
                    continue;
                int ix = tx / p.sw;
                if (ix >= p.W)
                    continue;
                sum += loadf(s, (c * p.H + iy) * p.W + ix) * float(w[wbase + ky * p.kw + kx]);
            }
        }
    }
    store1(o, (oc * p.OH + oy) * p.OW + ox, activate(sum, p.act, p.p0, p.p1));
}
