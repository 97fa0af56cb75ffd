#version 450
// Winograd F(2x2, 3x3) output transform: the 16 products M[k][oc][t] of tile
// t (gemm.comp's float output) give the 2x2 outputs A^T m A (A^T = [1 1 1 0;
// 0 1 -1 -1]) at (2 tx, 2 ty), plus the bias and the fused activation,
// written at elempack p.op (1, 4 or 8). Invocation (t, oc); float arithmetic.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer M { float m[]; }; // float in every variant
layout(std430, binding = 1) readonly buffer B { float bias[]; };
layout(std430, binding = 2) writeonly buffer Out { sfp o[]; };
layout(push_constant) uniform P
{
    int outw, outh, outc, op;
    int tw, th, bias_term, act;
    float p0, p1;
} p;

void main()
{
    int t = int(gl_GlobalInvocationID.x);
    int oc = int(gl_GlobalInvocationID.y);
    int nt = p.tw * p.th;
    if (t >= nt || oc >= p.outc)
        return;
    int stride = p.outc * nt;
    int i0 = oc * nt + t;
    float s[4][4];
    for (int k = 0; k < 16; k++)
        s[k / 4][k % 4] = m[k * stride + i0];
    // rows: A^T s
    float r0[4], r1[4];
    for (int q = 0; q < 4; q++)
    {
        r0[q] = s[0][q] + s[1][q] + s[2][q];
        r1[q] = s[1][q] - s[2][q] - s[3][q];
    }
    float b0 = p.bias_term != 0 ? bias[oc] : 0.0;
    float y[2][2];
    y[0][0] = r0[0] + r0[1] + r0[2];
    y[0][1] = r0[1] - r0[2] - r0[3];
    y[1][0] = r1[0] + r1[1] + r1[2];
    y[1][1] = r1[1] - r1[2] - r1[3];
    int ox0 = (t % p.tw) * 2;
    int oy0 = (t / p.tw) * 2;
    int base = (oc / p.op) * p.outw * p.outh * p.op + oc % p.op;
    for (int dy = 0; dy < 2; dy++)
    {
        for (int dx = 0; dx < 2; dx++)
        {
            int x = ox0 + dx, yy = oy0 + dy;
            if (x < p.outw && yy < p.outh)
                store1(o, base + (yy * p.outw + x) * p.op, activate(y[dy][dx] + b0, p.act, p.p0, p.p1));
        }
    }
}
