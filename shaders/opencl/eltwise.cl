// Element-wise kernels over whole images (same size in and out).

// out = activate(in): ReLU (act 1 / leaky 2), Clip (3), Sigmoid (4), ...
__kernel void activation(__read_only image2d_t in, __write_only image2d_t out, int iw, int ih, int act, float p0,
                         float p1)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    WR(out, x, y, activate(RD(in, x, y), act, p0, p1));
}

// GELU: 0.5 x (1 + erf(x / sqrt 2)), or the tanh form when fast
__kernel void gelu(__read_only image2d_t in, __write_only image2d_t out, int iw, int ih, int fast)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    float4 v = RD(in, x, y);
    float4 r;
    if (fast)
        r = 0.5f * v * (1.f + tanh(0.79788452f * (v + 0.044715f * v * v * v)));
    else
        r = 0.5f * v * (1.f + erf(v * 0.70710678f));
    WR(out, x, y, r);
}

// Eltwise of two images: op 0 prod, 1 sum (a*ca + b*cb), 2 max; then the
// activation act (p0, p1) of a layer that followed (0: none)
__kernel void eltwise2(__read_only image2d_t a, __read_only image2d_t b, __write_only image2d_t out, int iw, int ih,
                       int op, float ca, float cb, int act, float p0, float p1)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    FLOAT4 va = RDH(a, x, y), vb = RDH(b, x, y);
    FLOAT4 r = op == 0 ? va * vb : op == 1 ? va * (FLOAT)ca + vb * (FLOAT)cb : fmax(va, vb);
    if (act == 0)
        WRH(out, x, y, r);
    else
        WR(out, x, y, activate(TO_FLOAT4(r), act, p0, p1));
}

// out = x * b[c] + a[c] per channel (BatchNorm's folded scale and shift);
// a, b are 1-D argument images, W the image's pixels per channel block
__kernel void channel_affine(__read_only image2d_t in, __read_only image2d_t a, __read_only image2d_t b,
                             __write_only image2d_t out, int iw, int ih, int W)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    int cb = x / W;
    WR(out, x, y, RD(in, x, y) * RD(b, cb, 0) + RD(a, cb, 0));
}
