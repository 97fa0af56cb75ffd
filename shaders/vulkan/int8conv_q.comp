#version 450
// int8 Convolution / ConvolutionDepthWise (int8_scale_term) on an input
// quantized by int8quant.comp (4 channels of one position per uint), or on
// a packed blob that already holds int8 values (p.direct), with
// int8 weights packed 4 per uint; int32 sums and the CPU's epilogue
// (int8.h kite_int8_finish: dequantize, bias, activation, requantize).
// Each invocation computes one quad of 4 output channels at NX = 4
// consecutive x positions (a constant, so the sums stay in registers;
// positions past the row read in-bounds taps or the pad and are not stored).
// Weights (the driver's layout, bytes are two's complement int8):
//   dense/grouped: word ((oq * inq_g + icq) * kh * kw + tap) * 4 + l holds,
//     in byte j, the weight of output channel 4oq + j and input lane l of
//     the group's input quad icq (0 beyond the channel counts), so
//     sum += q.x * col0 + q.y * col1 + q.z * col2 + q.w * col3
//   depth-wise (p.dw_mode): word oq * kh * kw + tap holds channel 4oq + j's
//     tap in byte j
// Taps outside the input read p.pad_word (the int8 pad value in every lane).
// Output channel oc at position pos is scalar ((oc / op) * plane + pos) * op
// + oc % op of the output (elempack op = 1, 4 or 8).
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Q { uint qa[]; };
// p.direct: binding 0 is the input blob itself, elempack 4 or 8, already
// holding int8 values (a requantized output): read as vec4 and converted
layout(std430, binding = 0) readonly buffer Av { sfpvec4 av[]; };
layout(std430, binding = 1) readonly buffer W { uint wt[]; };
layout(std430, binding = 2) readonly buffer A { float args[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
// p.of32 (a float output in a session with fp16 storage): fp32 scalars (VkBlob::f32)
layout(std430, binding = 3) writeonly buffer OutF { float bf[]; };
layout(push_constant) uniform P
{
    int w, h, outw, outh, outc, outq;
    int kw, kh, dlw, dlh, sw, sh, pl, pt;
    int inq_g, outq_g, dw_mode, direct;
    int act;
    float p0, p1;
    uint pad_word;
    int numerics, requant, op;
    int isub; // p.direct: vec4 per input element (1: elempack 4, 2: 8)
    int of32;
} p;

#define NX 4

// the 4 int8 channels of input quad iq at position pos (the pad outside)
ivec4 tap(int iq, int pos, bool inside, int plane)
{
    if (!inside)
        return kite_unpack_i8x4(p.pad_word);
    if (p.direct != 0)
        return ivec4(vec4(av[((iq / p.isub) * plane + pos) * p.isub + iq % p.isub]));
    return kite_unpack_i8x4(qa[iq * plane + pos]);
}

void main()
{
    int ox0 = int(gl_GlobalInvocationID.x) * NX;
    int oy = int(gl_GlobalInvocationID.y);
    int oq = int(gl_GlobalInvocationID.z);
    if (ox0 >= p.outw || oy >= p.outh || oq >= p.outq)
        return;
    ivec4 sum[NX];
    for (int j = 0; j < NX; j++)
        sum[j] = ivec4(0);
    int plane = p.w * p.h;
    int kk = p.kw * p.kh;
    int y0 = oy * p.sh - p.pt;
    if (p.dw_mode != 0)
    {
        for (int ky = 0; ky < p.kh; ky++)
        {
            int y = y0 + ky * p.dlh;
            bool yin = y >= 0 && y < p.h;
            for (int kx = 0; kx < p.kw; kx++)
            {
                ivec4 k = kite_unpack_i8x4(wt[oq * kk + ky * p.kw + kx]);
                for (int j = 0; j < NX; j++)
                {
                    int x = (ox0 + j) * p.sw - p.pl + kx * p.dlw;
                    sum[j] += tap(oq, y * p.w + x, yin && x >= 0 && x < p.w, plane) * k;
                }
            }
        }
    }
    else
    {
        int g = oq / p.outq_g;
        for (int icq = 0; icq < p.inq_g; icq++)
        {
            int iq = g * p.inq_g + icq;
            int wbase = (oq * p.inq_g + icq) * kk;
            for (int ky = 0; ky < p.kh; ky++)
            {
                int y = y0 + ky * p.dlh;
                bool yin = y >= 0 && y < p.h;
                for (int kx = 0; kx < p.kw; kx++)
                {
                    int k = (wbase + ky * p.kw + kx) * 4;
                    ivec4 c0 = kite_unpack_i8x4(wt[k]);
                    ivec4 c1 = kite_unpack_i8x4(wt[k + 1]);
                    ivec4 c2 = kite_unpack_i8x4(wt[k + 2]);
                    ivec4 c3 = kite_unpack_i8x4(wt[k + 3]);
                    for (int j = 0; j < NX; j++)
                    {
                        int x = (ox0 + j) * p.sw - p.pl + kx * p.dlw;
                        ivec4 v = tap(iq, y * p.w + x, yin && x >= 0 && x < p.w, plane);
                        sum[j] += v.x * c0 + v.y * c1 + v.z * c2 + v.w * c3;
                    }
                }
            }
        }
    }
    int oplane = p.outw * p.outh;
    for (int l = 0; l < 4; l++)
    {
        int oc = oq * 4 + l;
        if (oc >= p.outc)
            break;
        float bias = args[oc], si = args[p.outc + oc], so = args[2 * p.outc + oc];
        int obase = (oc / p.op) * oplane * p.op + oc % p.op;
        for (int j = 0; j < NX; j++)
        {
            int ox = ox0 + j;
            if (ox < p.outw)
            {
                float v = kite_int8_finish(sum[j][l], bias, si, so, p.numerics, p.requant, p.act, p.p0, p.p1);
                if (p.of32 != 0)
                    bf[obase + (oy * p.outw + ox) * p.op] = v;
                else
                    store1(b, obase + (oy * p.outw + ox) * p.op, v);
            }
        }
    }
}
