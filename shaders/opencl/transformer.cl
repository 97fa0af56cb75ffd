// Kernels of the transformer layers and the remaining element-wise ones.
// A dims-2 blob (w, h) is the channel-major image with C = h (rows, 4 per
// pixel lane), H = w, W = 1: pixel (rb, e) holds element e of rows rb*4..+3.

inline float lane4(float4 v, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

// y[r][n] = alpha * (sum_k x[r][k] * w[n][k] + beta * bias[n]) (ncnn's Gemm)
// x: rows as above (H = K); w image [(K+3)/4, N]: pixel (kb, n) = w[n][kb*4..+3];
// bias a 1-D argument (bias_mode 0 none, 1 per n, 2 one scalar)
__kernel void linear(__read_only image2d_t x, __read_only image2d_t w, __read_only image2d_t bias,
                     __write_only image2d_t y, int RB, int K, int N, int bias_mode, float alpha, float beta)
{
    int rb = get_global_id(0), n = get_global_id(1);
    if (rb >= RB || n >= N)
        return;
    float4 s = (float4)(0.f);
    int KB = DIV4(K);
    for (int kb = 0; kb < KB; kb++)
    {
        float4 w4 = RD(w, kb, n);
        int k = kb * 4;
        s += RD(x, rb, k) * w4.x + RD(x, rb, k + 1) * w4.y + RD(x, rb, k + 2) * w4.z + RD(x, rb, k + 3) * w4.w;
    }
    if (bias_mode == 1)
        s += beta * lane4(RD(bias, n / 4, 0), n % 4);
    else if (bias_mode == 2)
        s += beta * RD(bias, 0, 0).x;
    WR(y, rb, n, s * alpha);
}

// LayerNorm of every row (span = H) of a dims-2 image; gamma/beta 1-D arguments.
// One work group of 64 items per block of 4 rows (launched with that local
// size), the span strided over the items, the sums reduced in local memory.
__kernel void layernorm_rows(__read_only image2d_t in, __read_only image2d_t gamma, __read_only image2d_t beta,
                             __write_only image2d_t out, int RB, int H, float eps, int affine)
{
    __local float4 part[64];
    int rb = get_group_id(0);
    int lane = get_local_id(0);
    float4 sum = (float4)(0.f);
    for (int y = lane; y < H; y += 64)
        sum += RD(in, rb, y);
    float4 mean = group_sum64(part, lane, sum) / (float)H;
    float4 sq = (float4)(0.f);
    for (int y = lane; y < H; y += 64)
    {
        float4 v = RD(in, rb, y) - mean;
        sq += v * v;
    }
    float4 a = (float4)(1.f) / sqrt(group_sum64(part, lane, sq) / (float)H + eps);
    float4 b = -mean * a;
    if (rb >= RB)
        return;
    for (int y = lane; y < H; y += 64)
    {
        float4 v = RD(in, rb, y) * a + b;
        if (affine)
            v = v * lane4(RD(gamma, y / 4, 0), y % 4) + lane4(RD(beta, y / 4, 0), y % 4);
        WR(out, rb, y, v);
    }
}

// LayerNorm of a dims-1 blob (pixel (cb, 0) holds elements cb*4..+3 of n;
// the lanes past n are left out); gamma/beta 1-D arguments of the same layout.
// One work group of 64 items (launched with that local size).
__kernel void layernorm_vec(__read_only image2d_t in, __read_only image2d_t gamma, __read_only image2d_t beta,
                            __write_only image2d_t out, int n, float eps, int affine)
{
    __local float4 part[64];
    int lane = get_local_id(0);
    int NB = DIV4(n);
    float4 sum = (float4)(0.f);
    for (int cb = lane; cb < NB; cb += 64)
        sum += select((float4)(0.f), RD(in, cb, 0), (int4)(0, 1, 2, 3) + cb * 4 < (int4)(n));
    float mean = dot(group_sum64(part, lane, sum), (float4)(1.f)) / (float)n;
    float4 sq = (float4)(0.f);
    for (int cb = lane; cb < NB; cb += 64)
    {
        float4 v = select((float4)(0.f), RD(in, cb, 0) - mean, (int4)(0, 1, 2, 3) + cb * 4 < (int4)(n));
        sq += v * v;
    }
    float a = 1.f / sqrt(dot(group_sum64(part, lane, sq), (float4)(1.f)) / (float)n + eps);
    for (int cb = lane; cb < NB; cb += 64)
    {
        float4 v = (RD(in, cb, 0) - mean) * a;
        if (affine)
            v = v * RD(gamma, cb, 0) + RD(beta, cb, 0);
        WR(out, cb, 0, v);
    }
}

// MatMul (layer/matmul.h): output element L in the Mat's order is
// (z * M + i) * N + j with z = ci * bd + di; operand batch (ci % x_bc) *
// x_bd + di % x_bd (1 where it broadcasts); B holds N x K when b_trans.
// Operands and output are channel-major images read and written element by
// element (read_linear; (XH, XW) their image H and W); one item per output
// pixel (4 channels).
__kernel void matmul(__read_only image2d_t a, __read_only image2d_t b, __write_only image2d_t out, int OC, int OH,
                     int OW, int AH, int AW, int BH, int BW, int M, int N, int K, int bd, int a_bc, int a_bd, int b_bc,
                     int b_bd, int b_trans)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= OW * DIV4(OC) || y >= OH)
        return;
    int cb = x / OW, xx = x - cb * OW;
    float r[4];
    for (int l = 0; l < 4; l++)
    {
        int c = cb * 4 + l;
        float s = 0.f;
        if (c < OC)
        {
            int L = (c * OH + y) * OW + xx;
            int j = L % N, t = L / N;
            int i = t % M, z = t / M;
            int ci = z / bd, di = z - ci * bd;
            int abase = ((ci % a_bc) * a_bd + di % a_bd) * M * K + i * K;
            int bbase = ((ci % b_bc) * b_bd + di % b_bd) * K * N;
            for (int k = 0; k < K; k++)
                s += read_linear(a, abase + k, AH, AW) * read_linear(b, b_trans ? bbase + j * K + k : bbase + k * N + j, BH, BW);
        }
        r[l] = s;
    }
    WR(out, x, y, (float4)(r[0], r[1], r[2], r[3]));
}

// attention scores: out pixel (qb, h*T + t) = scale * q[qb lanes] . k[t] over head h
__kernel void attn_scores(__read_only image2d_t q, __read_only image2d_t k, __write_only image2d_t out, int QB, int T,
                          int heads, int hd, float scale)
{
    int qb = get_global_id(0), r = get_global_id(1);
    if (qb >= QB || r >= heads * T)
        return;
    int h = r / T, t = r % T;
    float4 s = (float4)(0.f);
    for (int j = 0; j < hd; j++)
        s += RD(q, qb, h * hd + j) * scale * lane4(RD(k, t / 4, h * hd + j), t % 4);
    WR(out, qb, r, s);
}

// softmax over t of every (qb, h): one work group of 64 items per (qb, h)
// (group qb * heads + h, launched with that local size), t strided over the
// items, the maximum and the sum reduced in local memory
__kernel void attn_softmax(__read_only image2d_t in, __write_only image2d_t out, int QB, int T, int heads)
{
    __local float4 part[64];
    int g = get_group_id(0);
    int qb = g / heads, h = g - qb * heads;
    int lane = get_local_id(0);
    float4 m = (float4)(-FLT_MAX);
    for (int t = lane; t < T; t += 64)
        m = fmax(m, RD(in, qb, h * T + t));
    m = group_max64(part, lane, m);
    float4 s = (float4)(0.f);
    for (int t = lane; t < T; t += 64)
        s += exp(RD(in, qb, h * T + t) - m);
    s = group_sum64(part, lane, s);
    if (qb >= QB)
        return;
    for (int t = lane; t < T; t += 64)
        WR(out, qb, h * T + t, exp(RD(in, qb, h * T + t) - m) / s);
}

// out pixel (qb, e) = sum_t p[qb, h*T + t] * v[t][e], h = e / hd
__kernel void attn_values(__read_only image2d_t p, __read_only image2d_t v, __write_only image2d_t out, int QB, int T,
                          int E, int hd)
{
    int qb = get_global_id(0), e = get_global_id(1);
    if (qb >= QB || e >= E)
        return;
    int h = e / hd;
    float4 s = (float4)(0.f);
    for (int t = 0; t < T; t++)
        s += RD(p, qb, h * T + t) * lane4(RD(v, t / 4, e), t % 4);
    WR(out, qb, e, s);
}

inline float4 binary(float4 a, float4 b, int op)
{
    switch (op)
    {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return fmax(a, b);
    case 5: return fmin(a, b);
    case 6: return pow(a, b);
    case 7: return b - a;
    case 8: return b / a;
    case 9: return pow(b, a);
    case 10: return atan2(a, b);
    default: return atan2(b, a);
    }
}

// texel (x, y) of an image of W-wide channel blocks, or (cs >= 0) of that
// image with its channels zero-padded from cs to the blob's: a channel
// Padding put off and read through (the lanes past cs are not read)
inline float4 rd_chpad(__read_only image2d_t img, int x, int y, int W, int cs)
{
    if (cs < 0)
        return RD(img, x, y);
    int left = cs - (x / W) * 4;
    if (left <= 0)
        return (float4)(0.f);
    float4 q = RD(img, x, y);
    return left >= 4 ? q : (float4)(q.x, left > 1 ? q.y : 0.f, left > 2 ? q.z : 0.f, 0.f);
}

// BinaryOp of two same-shaped images, or of an image and a scalar
// (b_is_scalar); then the activation act (p0, p1) of a layer that followed
// (0: none). ca, cb >= 0: that side is read as its first ca (cb) channels
// zero-padded (rd_chpad; W the blob's width)
__kernel void binaryop(__read_only image2d_t a, __read_only image2d_t b, __write_only image2d_t out, int iw, int ih,
                       int op, int b_is_scalar, float scalar, int act, float p0, float p1, int W, int ca, int cb)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    float4 vb = b_is_scalar ? (float4)(scalar) : rd_chpad(b, x, y, W, cb);
    WR(out, x, y, activate(binary(rd_chpad(a, x, y, W, ca), vb, op), act, p0, p1));
}

// BinaryOp of a [W, H, C] image and a per-channel [1, 1, C] one (the
// squeeze-excitation scale), in one launch: `small` is the per-channel side
// (1: b, 0: a), read at pixel (channel block, 0), with the activation sact
// (sp0, sp1) of a layer before it applied (0: none); W the full side's
// width; act as binaryop
__kernel void binaryop_c(__read_only image2d_t a, __read_only image2d_t b, __write_only image2d_t out, int iw, int ih,
                         int W, int op, int small, int act, float p0, float p1, int sact, float sp0, float sp1)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    float4 va = small == 0 ? activate(RD(a, x / W, 0), sact, sp0, sp1) : RD(a, x, y);
    float4 vb = small == 1 ? activate(RD(b, x / W, 0), sact, sp0, sp1) : RD(b, x, y);
    WR(out, x, y, activate(binary(va, vb, op), act, p0, p1));
}

// LRN across channels: x * (bias + alpha/size * sum of squares over the window)^-beta
__kernel void lrn_across(__read_only image2d_t in, __write_only image2d_t out, int C, int H, int W, int size,
                         float alpha_div_size, float beta, float bias)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= W * DIV4(C) || y >= H)
        return;
    int cb = x / W, w = x % W;
    float4 v = RD(in, x, y);
    float r[4];
    for (int k = 0; k < 4; k++)
    {
        int c = cb * 4 + k;
        float ss = 0.f;
        for (int p = c - size / 2; p <= c + size / 2; p++)
        {
            if (p < 0 || p >= C)
                continue;
            float e = lane4(RD(in, (p / 4) * W + w, y), p % 4);
            ss += e * e;
        }
        r[k] = lane4(v, k) * pow(bias + alpha_div_size * ss, -beta);
    }
    WR(out, x, y, (float4)(r[0], r[1], r[2], r[3]));
}
