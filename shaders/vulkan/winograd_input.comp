#version 450
// Winograd F(2x2, 3x3) input transform of a 3x3 stride-1 Convolution: the
// 4x4 input tile t (origin (2 tx - pl, 2 ty - pt), pad_value outside) of
// channel ic becomes V[k][ic][t] = (B^T d B)[k], k < 16, the B operand of the
// 16 products of gemm.comp (U[k] x V[k]). Input elempack p.ip (1, 4 or 8):
// channel ic at position pos is ((ic / ip) * plane + pos) * ip + ic % ip.
// Invocation (t, ic); float arithmetic in every variant.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
// V is float in every variant: the products' sums cancel in the output
// transform, and fp16 intermediates lost 0.04 of outputs around 0.3
layout(std430, binding = 1) writeonly buffer V { float v[]; };
layout(push_constant) uniform P
{
    int w, h, c, ip;
    int tw, th, pl, pt;
    float pad_value;
} p;

void main()
{
    int t = int(gl_GlobalInvocationID.x);
    int ic = int(gl_GlobalInvocationID.y);
    int nt = p.tw * p.th;
    if (t >= nt || ic >= p.c)
        return;
    int x0 = (t % p.tw) * 2 - p.pl;
    int y0 = (t / p.tw) * 2 - p.pt;
    int base = (ic / p.ip) * p.w * p.h * p.ip + ic % p.ip;
    float d[4][4];
    for (int r = 0; r < 4; r++)
    {
        int y = y0 + r;
        for (int q = 0; q < 4; q++)
        {
            int x = x0 + q;
            d[r][q] = (y >= 0 && y < p.h && x >= 0 && x < p.w) ? loadf(a, base + (y * p.w + x) * p.ip) : p.pad_value;
        }
    }
    // rows: B^T d (B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1])
    float e[4][4];
    for (int q = 0; q < 4; q++)
    {
        e[0][q] = d[0][q] - d[2][q];
        e[1][q] = d[1][q] + d[2][q];
        e[2][q] = d[2][q] - d[1][q];
        e[3][q] = d[1][q] - d[3][q];
    }
    // columns: (B^T d) B
    int stride = p.c * nt;
    int o = ic * nt + t;
    for (int r = 0; r < 4; r++)
    {
        v[(r * 4 + 0) * stride + o] = e[r][0] - e[r][2];
        v[(r * 4 + 1) * stride + o] = e[r][1] + e[r][2];
        v[(r * 4 + 2) * stride + o] = e[r][2] - e[r][1];
        v[(r * 4 + 3) * stride + o] = e[r][1] - e[r][3];
    }
}
