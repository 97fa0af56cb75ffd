#version 450
// Max / average pooling over (x, y) windows, ncnn's padding rules resolved by
// the driver; global pooling is a window covering the whole plane. One
// invocation per scalar channel q; input and output elempack ip / op (1,
// 4 or 8): channel q of a position lives at ((q / pack) * plane + pos) * pack +
// q % pack.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer In { sfp a[]; };
layout(std430, binding = 1) writeonly buffer Out { sfp b[]; };
layout(push_constant) uniform P
{
    int w, h, c, outw, outh;
    int kw, kh, sw, sh, pl, pt;
    int is_max, exclude_pad;
    int ex_lo_x, ex_hi_x, ex_lo_y, ex_hi_y;
    int ip, op;
} p;

void main()
{
    int ox = int(gl_GlobalInvocationID.x);
    int oy = int(gl_GlobalInvocationID.y);
    int q = int(gl_GlobalInvocationID.z);
    if (ox >= p.outw || oy >= p.outh || q >= p.c)
        return;
    int base = (q / p.ip) * p.w * p.h * p.ip + q % p.ip;
#define AT(pos) (base + (pos) * p.ip)
    int sx0 = ox * p.sw;
    int sy0 = oy * p.sh;
    afp v;
    if (p.is_max != 0)
    {
        // fp16 arithmetic: the lowest float becomes -inf, still the identity of max
        v = afp(-3.402823466e+38);
        for (int ky = 0; ky < p.kh; ky++)
        {
            int y = sy0 + ky - p.pt;
            for (int kx = 0; kx < p.kw; kx++)
            {
                int x = sx0 + kx - p.pl;
                afp t = (y >= 0 && y < p.h && x >= 0 && x < p.w) ? load1(a, AT(y * p.w + x)) : afp(-3.402823466e+38);
                v = max(v, t);
            }
        }
    }
    else
    {
        // float sum in every variant: a global average adds a whole plane
        float sum = 0.0;
        int area = 0;
        for (int ky = 0; ky < p.kh; ky++)
        {
            int py = sy0 + ky;
            if (p.exclude_pad != 0 && (py < p.ex_lo_y || py >= p.ex_hi_y))
                continue;
            int y = py - p.pt;
            for (int kx = 0; kx < p.kw; kx++)
            {
                int px = sx0 + kx;
                if (p.exclude_pad != 0 && (px < p.ex_lo_x || px >= p.ex_hi_x))
                    continue;
                int x = px - p.pl;
                if (y >= 0 && y < p.h && x >= 0 && x < p.w)
                    sum += loadf(a, AT(y * p.w + x));
                area++;
            }
        }
        v = afp(p.exclude_pad != 0 ? sum / float(area) : sum / float(p.kw * p.kh));
    }
    store1(b, ((q / p.op) * p.outh * p.outw + oy * p.outw + ox) * p.op + q % p.op, v);
}
