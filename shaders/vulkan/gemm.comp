#version 450
// Batched matrix product through shared-memory tiles (Gemm, MultiHeadAttention):
//   out[z](i, j) = act(alpha * sum_k A[z](i, k) * B[z](k, j) + cbeta * C[z](i, j))
// for i < M, j < N, z < batch, every operand addressed by strides (batch, row,
// column), so transposes, broadcasts (stride 0) and head slices need no copy.
// A work group of 16 x 16 invocations computes a 64 x 64 tile of out, each
// invocation 4 x 4 outputs; K advances 16 at a time through shared memory,
// loaded along whichever axis of the operand is contiguous.
#extension GL_GOOGLE_include_directive : require
#include "types.h"
#include "activation.h"

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in; // 16 x 16 x 1
layout(std430, binding = 0) readonly buffer A { sfp a[]; };
layout(std430, binding = 1) readonly buffer B { sfp b[]; };
layout(std430, binding = 2) readonly buffer C { sfp c[]; };
layout(std430, binding = 3) writeonly buffer Out { sfp o[]; };
// the same bindings as float: constant operands (weights, biases) are float
// buffers in every variant (types.h), as are MultiHeadAttention's
// intermediates; a_f32/b_f32/c_f32/o_f32 say which to read or write
layout(std430, binding = 0) readonly buffer Af { float af[]; };
layout(std430, binding = 1) readonly buffer Bf { float bf[]; };
layout(std430, binding = 2) readonly buffer Cf { float cf[]; };
layout(std430, binding = 3) writeonly buffer Of { float of[]; };
layout(push_constant) uniform P
{
    int M, N, K;
    int a_bs, a_rs, a_cs;
    int b_bs, b_rs, b_cs;
    int o_bs, o_rs, o_cs;
    int c_bs, c_rs, c_cs;
    int has_c, act;
    float alpha, cbeta, p0, p1;
    int a_f32, b_f32, c_f32, o_f32;
} p;

#define TILE 64
#define TK 16
shared float As[TK][TILE + 1]; // [k][i], padded against bank conflicts
shared float Bs[TK][TILE + 1]; // [k][j]

void main()
{
    int tx = int(gl_LocalInvocationID.x);
    int ty = int(gl_LocalInvocationID.y);
    int lid = ty * 16 + tx;
    int z = int(gl_WorkGroupID.z);
    int i0 = int(gl_WorkGroupID.y) * TILE;
    int j0 = int(gl_WorkGroupID.x) * TILE;
    int abase = z * p.a_bs;
    int bbase = z * p.b_bs;
    // A rows contiguous (a_cs == 1): neighbours take neighbouring k
    bool a_kfast = p.a_cs == 1;
    bool b_kfast = p.b_cs != 1 && p.b_rs == 1;
    float acc[4][4];
    for (int r = 0; r < 4; r++)
        for (int q = 0; q < 4; q++)
            acc[r][q] = 0.0;
    for (int k0 = 0; k0 < p.K; k0 += TK)
    {
        for (int r = 0; r < 4; r++)
        {
            int e = lid + r * 256;
            int ii = a_kfast ? e / TK : e % TILE;
            int kk = a_kfast ? e % TK : e / TILE;
            int i = i0 + ii, k = k0 + kk;
            As[kk][ii] = (i < p.M && k < p.K) ? (p.a_f32 != 0 ? af[abase + i * p.a_rs + k * p.a_cs] : loadf(a, abase + i * p.a_rs + k * p.a_cs)) : 0.0;
            int jj = b_kfast ? e / TK : e % TILE;
            int kb = b_kfast ? e % TK : e / TILE;
            int j = j0 + jj;
            k = k0 + kb;
            Bs[kb][jj] = (j < p.N && k < p.K) ? (p.b_f32 != 0 ? bf[bbase + k * p.b_rs + j * p.b_cs] : loadf(b, bbase + k * p.b_rs + j * p.b_cs)) : 0.0;
        }
        barrier();
        for (int kk = 0; kk < TK; kk++)
        {
            float av[4], bv[4];
            for (int r = 0; r < 4; r++)
            {
                av[r] = As[kk][ty + 16 * r];
                bv[r] = Bs[kk][tx + 16 * r];
            }
            for (int r = 0; r < 4; r++)
                for (int q = 0; q < 4; q++)
                    acc[r][q] += av[r] * bv[q];
        }
        barrier();
    }
    for (int r = 0; r < 4; r++)
    {
        int i = i0 + ty + 16 * r;
        if (i >= p.M)
            continue;
        for (int q = 0; q < 4; q++)
        {
            int j = j0 + tx + 16 * q;
            if (j >= p.N)
                continue;
            float v = p.alpha * acc[r][q];
            if (p.has_c != 0)
            {
                int ci = z * p.c_bs + i * p.c_rs + j * p.c_cs;
                v += p.cbeta * (p.c_f32 != 0 ? cf[ci] : loadf(c, ci));
            }
            int oi = z * p.o_bs + i * p.o_rs + j * p.o_cs;
            if (p.o_f32 != 0)
                of[oi] = activate(v, p.act, p.p0, p.p1);
            else
                store1(o, oi, activate(v, p.act, p.p0, p.p1));
        }
    }
}
