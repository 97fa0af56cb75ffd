#version 450
// int8 Convolution / ConvolutionDepthWise (dense, or grouped with enough
// output channels per group) as an implicit GEMM through shared-memory
// tiles: out[oc][pixel] = sum over k = (tap, input channel) of
// W[oc][k] * in[k][pixel], any kernel, stride, dilation and padding (the
// input tile is gathered tap by tap, im2col in shared memory only).
// A work group of TX x TY invocations (the local size, 16 x 16 or 8 x 8)
// computes 4 TY output channels x 4 TX output pixels of one group
// (gl_WorkGroupID.z); invocation (tx, ty) holds output channels
// 4ty..4ty+3 of the tile (a vec4) at pixels tx + TX j, j < 4. K advances
// KS = 4 (tap, input quad) pairs, 16 products, a step.
//
// Exact integer sums on the float pipeline: every operand is an integer of
// magnitude <= 128 (quantized activations and pad values are clamped to
// [-127, 127], weights are int8), so a product is at most 2^14 and any sum of
// at most 1024 of them is an integer below 2^24, which float holds exactly
// whatever the order or contraction. The float partial sums go into int32
// totals every FLUSH steps (FLUSH * 16 <= 1024 products); the totals are the
// int32 sums of int8conv_q.comp and the CPU, and the epilogue is the same
// (int8.h kite_int8_finish).
//
// Split K (p.splits > 1, for layers with few tiles and a long K): the
// work groups of split s sum the K pairs [s * p.kchunk, (s + 1) * p.kchunk)
// and store their int32 sums; int8conv_splitk.comp adds the splits (exact
// in any order) and runs the epilogue.
//
// Input: int8quant.comp's words (q[iq * plane + pos]: 4 channels of one
// position, byte l = lane l), or with p.direct a packed blob (elempack 4 or 8,
// p.isub vec4 per element) that already holds int8 values.
// Weights: word ((oq * kh * kw + tap) * inq_g + icq) * 4 + l holds, in byte
// j, the weight of output channel 4oq + j, tap, and input lane l of the
// group's input quad icq (0 beyond the channel counts); K index
// kq = tap * inq_g + icq.
// Output channel oc at pixel pos is scalar ((oc / op) * plane + pos) * op +
// oc % op of the output (elempack op = 1, 4 or 8).
//
// KITE_INT8_DOT (the "int8conv_gemm_dot4" variant, for devices with
// VK_KHR_shader_integer_dot_product): the tiles hold packed words instead
// (a pixel's 4 input lanes in one uint, an output channel's 4 weights of
// those lanes in one uint) and every 4 products are one packed dot product
// into the int32 sums (int8.h kite_sdot4), no float partial sums. Its
// weights are the 4 x 4 byte blocks above transposed: word ((oq * kh * kw +
// tap) * inq_g + icq) * 4 + j holds, in byte l, the weight of output channel
// 4oq + j for input lane l (read as one uvec4 per output quad and K pair).
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"
#include "int8.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, binding = 0) readonly buffer Q { uint qa[]; };
layout(std430, binding = 0) readonly buffer Av { sfpvec4 av[]; };
#ifdef KITE_INT8_DOT
layout(std430, binding = 1) readonly buffer W { uvec4 wt4[]; };
#else
layout(std430, binding = 1) readonly buffer W { uint wt[]; };
#endif
layout(std430, binding = 2) readonly buffer A { float args[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp b[]; };
// p.splits > 1: binding 3 is an int32 buffer of partial sums instead,
// part[(split * outc + oc) * plane + pos], which int8conv_splitk.comp adds
// up and finishes
layout(std430, binding = 3) writeonly buffer Part { int part[]; };
// p.of32 (a float output in a session with fp16 storage): binding 3 holds
// fp32 scalars (VkBlob::f32)
layout(std430, binding = 3) writeonly buffer OutF { float bf[]; };
layout(push_constant) uniform P
{
    int w, h, outw, outh, outc;
    int kw, kh, dlw, dlh, sw, sh, pl, pt;
    int inq_g, outq_g, direct, isub;
    int act;
    float p0, p1;
    uint pad_word;
    int numerics, requant, op;
    int groups, splits, kchunk; // split K: gl_WorkGroupID.z = split * groups + group; kchunk K pairs a split
    int of32;
} p;

#define KS 4
#define FLUSH 32
// the largest tile (16 x 16 invocations); smaller local sizes use part of it
#define MAXPX 64
#define MAXOQ 16

#ifdef KITE_INT8_DOT
shared uint Is[KS][MAXPX]; // [K pair of the step][pixel of the tile]: 4 input lanes, packed
shared uvec4 Ws[KS][MAXOQ + 1]; // [K pair][output quad of the tile]: per output lane its 4 input lanes, packed
#define STAGED uint
// an elempack-4 element holding int8 values, packed as qa's words
uint stage_direct(vec4 v)
{
    ivec4 i = ivec4(v) & 255;
    return uint(i.x | (i.y << 8) | (i.z << 16) | (i.w << 24));
}
#define STAGE_WORD(u) (u)
#define STAGE_ZERO 0u
#else
shared vec4 Is[KS][MAXPX]; // [K pair of the step][pixel of the tile]: 4 input lanes
shared vec4 Ws[KS * 4][MAXOQ + 1]; // [K pair * 4 + input lane][output quad of the tile]: 4 output lanes
#define STAGED vec4
#define stage_direct(v) (v)
#define STAGE_WORD(u) kite_unpack_i8x4_f(u)
#define STAGE_ZERO vec4(0.0)
#endif

void main()
{
    const int TX = int(gl_WorkGroupSize.x), TY = int(gl_WorkGroupSize.y);
    const int NT = TX * TY, NPX = 4 * TX;
    int tx = int(gl_LocalInvocationID.x);
    int ty = int(gl_LocalInvocationID.y);
    int lid = ty * TX + tx;
    int n = p.outw * p.outh;
    int plane = p.w * p.h;
    int kk = p.kw * p.kh;
    int kq_total = kk * p.inq_g;
    int g = int(gl_WorkGroupID.z) % p.groups;
    int split = int(gl_WorkGroupID.z) / p.groups;
    int kbeg = split * p.kchunk;
    int kend = min(kq_total, kbeg + p.kchunk);
    int j0 = int(gl_WorkGroupID.x) * NPX;
    int oql0 = int(gl_WorkGroupID.y) * TY; // first output quad of the tile in the group
    int iq_g0 = g * p.inq_g;

    // this invocation's input staging: pixel spx of the tile for the K pairs
    // kql = lid / NPX + i * (NT / NPX) of each step (ei of them)
    int spx = lid % NPX;
    int sj = j0 + spx;
    bool svalid = sj < n;
    int oy = svalid ? sj / p.outw : 0;
    int ix0 = (sj - oy * p.outw) * p.sw - p.pl;
    int iy0 = oy * p.sh - p.pt;
    int ei = (KS * NPX) / NT; // 1 (16 x 16), 2 (8 x 8), 4 (16 x 4)
    int kstep = NT / NPX;
    // per staged K pair: tap (ky, kx) and input quad of the group, advanced
    // KS pairs a step without divisions
    int sky[4], skx[4], st[4], sq[4];
    for (int i = 0; i < 4; i++)
    {
        int kq = kbeg + lid / NPX + i * kstep;
        st[i] = kq / p.inq_g;
        sq[i] = kq - st[i] * p.inq_g;
        sky[i] = st[i] / p.kw;
        skx[i] = st[i] - sky[i] * p.kw;
    }

    ivec4 tot[4];
    for (int j = 0; j < 4; j++)
        tot[j] = ivec4(0);
#ifndef KITE_INT8_DOT
    vec4 acc[4];
    for (int j = 0; j < 4; j++)
        acc[j] = vec4(0.0);
    int since = 0;
#endif
    STAGED padv = STAGE_WORD(p.pad_word);
    for (int k0 = kbeg; k0 < kend; k0 += KS)
    {
        for (int i = 0; i < 4; i++) // a constant bound: the slots stay in registers
        {
            if (i >= ei)
                break;
            int kql = lid / NPX + i * kstep;
            STAGED v = STAGE_ZERO;
            if (k0 + kql < kend && svalid)
            {
                int y = iy0 + sky[i] * p.dlh;
                int x = ix0 + skx[i] * p.dlw;
                if (y >= 0 && y < p.h && x >= 0 && x < p.w)
                {
                    int iq = iq_g0 + sq[i];
                    int pos = y * p.w + x;
                    if (p.direct != 0)
                        v = stage_direct(vec4(av[((iq / p.isub) * plane + pos) * p.isub + iq % p.isub]));
                    else
                        v = STAGE_WORD(qa[iq * plane + pos]);
                }
                else
                    v = padv;
            }
            Is[kql][spx] = v;
            // the next step's pair of this slot
            sq[i] += KS;
            while (sq[i] >= p.inq_g)
            {
                sq[i] -= p.inq_g;
                st[i]++;
                if (++skx[i] == p.kw)
                {
                    skx[i] = 0;
                    sky[i]++;
                }
            }
        }
#ifdef KITE_INT8_DOT
        for (int e = lid; e < KS * TY; e += NT)
        {
            int wk = e % KS;
            int woql = e / KS;
            int kq = k0 + wk;
            uvec4 wv = uvec4(0u);
            if (oql0 + woql < p.outq_g && kq < kend)
                wv = wt4[(g * p.outq_g + oql0 + woql) * kq_total + kq];
            Ws[wk][woql] = wv;
        }
        barrier();
        for (int s = 0; s < KS; s++)
        {
            uvec4 w = Ws[s][ty];
            for (int j = 0; j < 4; j++)
            {
                int v = int(Is[s][tx + TX * j]);
                tot[j].x = kite_sdot4(v, int(w.x), tot[j].x);
                tot[j].y = kite_sdot4(v, int(w.y), tot[j].y);
                tot[j].z = kite_sdot4(v, int(w.z), tot[j].z);
                tot[j].w = kite_sdot4(v, int(w.w), tot[j].w);
            }
        }
        barrier();
#else
        for (int e = lid; e < KS * 4 * TY; e += NT)
        {
            int wk = e % (KS * 4);
            int woql = e / (KS * 4);
            int kq = k0 + wk / 4;
            vec4 wv = vec4(0.0);
            if (oql0 + woql < p.outq_g && kq < kend)
            {
                int oq = g * p.outq_g + oql0 + woql;
                wv = kite_unpack_i8x4_f(wt[(oq * kq_total + kq) * 4 + wk % 4]);
            }
            Ws[wk][woql] = wv;
        }
        barrier();
        for (int s = 0; s < KS; s++)
        {
            vec4 w0 = Ws[s * 4][ty];
            vec4 w1 = Ws[s * 4 + 1][ty];
            vec4 w2 = Ws[s * 4 + 2][ty];
            vec4 w3 = Ws[s * 4 + 3][ty];
            for (int j = 0; j < 4; j++)
            {
                vec4 v = Is[s][tx + TX * j];
                acc[j] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
            }
        }
        barrier();
        if (++since == FLUSH)
        {
            since = 0;
            for (int j = 0; j < 4; j++)
            {
                tot[j] += ivec4(acc[j]);
                acc[j] = vec4(0.0);
            }
        }
#endif
    }
#ifndef KITE_INT8_DOT
    for (int j = 0; j < 4; j++)
        tot[j] += ivec4(acc[j]);
#endif

    int oql = oql0 + ty;
    if (oql >= p.outq_g)
        return;
    int oq = g * p.outq_g + oql;
    for (int l = 0; l < 4; l++)
    {
        int oc = oq * 4 + l;
        if (oc >= p.outc)
            break;
        if (p.splits > 1)
        {
            for (int j = 0; j < 4; j++)
            {
                int jj = j0 + tx + TX * j;
                if (jj < n)
                    part[(split * p.outc + oc) * n + jj] = tot[j][l];
            }
            continue;
        }
        float bias = args[oc], si = args[p.outc + oc], so = args[2 * p.outc + oc];
        int obase = (oc / p.op) * n * p.op + oc % p.op;
        for (int j = 0; j < 4; j++)
        {
            int jj = j0 + tx + TX * j;
            if (jj < n)
            {
                float v = kite_int8_finish(tot[j][l], bias, si, so, p.numerics, p.requant, p.act, p.p0, p.p1);
                if (p.of32 != 0)
                    bf[obase + jj * p.op] = v;
                else
                    store1(b, obase + jj * p.op, v);
            }
        }
    }
}
