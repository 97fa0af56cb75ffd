// Convolution on channel-major images. Input [W * (C+3)/4, H], filter in the
// seeds' conv-filter layout [I, (O+3)/4 * KH * KW] (pixel (i, ob*KH*KW + t)
// holds 4 output channels of input channel i, tap t), bias a 1-D argument
// [(O+3)/4, 1]. One work item per output pixel (4 output channels).
// Positions outside the input read pad_value; input lanes past C meet filter
// columns past I, which read 0 (CLK_ADDRESS_CLAMP border).
// With KITE_HALF the products of one input-channel block are summed in half
// (FLOAT4 partials) and the partials in float (see common.h.cl).

__kernel void conv2d(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                     __write_only image2d_t out, int C, int H, int W, int OB, int OH, int OW, int kw, int kh, int sw,
                     int sh, int dw, int dh, int pl, int pt, float pad_value, int has_bias, int act, float p0, float p1)
{
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW * OB || oy >= OH)
        return;
    int ob = x / OW, ox = x % OW;
    float4 sum = has_bias ? RD(bias, ob, 0) : (float4)(0.f);
    int taps = kh * kw;
    int CB = DIV4(C);
    const FLOAT4 padv = (FLOAT4)((FLOAT)pad_value);
    for (int cb = 0; cb < CB; cb++)
    {
        FLOAT4 part = (FLOAT4)(0);
        for (int ky = 0; ky < kh; ky++)
        {
            int iy = oy * sh + ky * dh - pt;
            bool yin = iy >= 0 && iy < H;
            for (int kx = 0; kx < kw; kx++)
            {
                int ix = ox * sw + kx * dw - pl;
                FLOAT4 v = (yin && ix >= 0 && ix < W) ? RDH(in, cb * W + ix, iy) : padv;
                int n = ob * taps + ky * kw + kx;
                part += v.x * RDH(filt, cb * 4 + 0, n);
                part += v.y * RDH(filt, cb * 4 + 1, n);
                part += v.z * RDH(filt, cb * 4 + 2, n);
                part += v.w * RDH(filt, cb * 4 + 3, n);
            }
        }
        sum += TO_FLOAT4(part);
    }
    WR(out, x, oy, activate(sum, act, p0, p1));
}

// conv2d with 4 output pixels along x per work item (ox0 .. ox0 + 3 of
// output block ob): each filter texel read serves 4 pixels; positions past
// OW read in-bounds taps or the pad and are not written
__kernel void conv2d_x4(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                        __write_only image2d_t out, int C, int H, int W, int OB, int OH, int OW, int kw, int kh, int sw,
                        int sh, int dw, int dh, int pl, int pt, float pad_value, int has_bias, int act, float p0, float p1)
{
    int OW4 = DIV4(OW);
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW4 * OB || oy >= OH)
        return;
    int ob = x / OW4, ox0 = (x % OW4) * 4;
    float4 b = has_bias ? RD(bias, ob, 0) : (float4)(0.f);
    float4 s0 = b, s1 = b, s2 = b, s3 = b;
    int taps = kh * kw;
    int CB = DIV4(C);
    const FLOAT4 padv = (FLOAT4)((FLOAT)pad_value);
    int x0 = ox0 * sw - pl;
    for (int cb = 0; cb < CB; cb++)
    {
        FLOAT4 q0 = (FLOAT4)(0), q1 = (FLOAT4)(0), q2 = (FLOAT4)(0), q3 = (FLOAT4)(0);
        for (int ky = 0; ky < kh; ky++)
        {
            int iy = oy * sh + ky * dh - pt;
            bool yin = iy >= 0 && iy < H;
            for (int kx = 0; kx < kw; kx++)
            {
                int n = ob * taps + ky * kw + kx;
                FLOAT4 w0 = RDH(filt, cb * 4 + 0, n), w1 = RDH(filt, cb * 4 + 1, n);
                FLOAT4 w2 = RDH(filt, cb * 4 + 2, n), w3 = RDH(filt, cb * 4 + 3, n);
                int ix = x0 + kx * dw;
                FLOAT4 v0 = (yin && ix >= 0 && ix < W) ? RDH(in, cb * W + ix, iy) : padv;
                ix += sw;
                FLOAT4 v1 = (yin && ix >= 0 && ix < W) ? RDH(in, cb * W + ix, iy) : padv;
                ix += sw;
                FLOAT4 v2 = (yin && ix >= 0 && ix < W) ? RDH(in, cb * W + ix, iy) : padv;
                ix += sw;
                FLOAT4 v3 = (yin && ix >= 0 && ix < W) ? RDH(in, cb * W + ix, iy) : padv;
                q0 += v0.x * w0 + v0.y * w1 + v0.z * w2 + v0.w * w3;
                q1 += v1.x * w0 + v1.y * w1 + v1.z * w2 + v1.w * w3;
                q2 += v2.x * w0 + v2.y * w1 + v2.z * w2 + v2.w * w3;
                q3 += v3.x * w0 + v3.y * w1 + v3.z * w2 + v3.w * w3;
            }
        }
        s0 += TO_FLOAT4(q0);
        s1 += TO_FLOAT4(q1);
        s2 += TO_FLOAT4(q2);
        s3 += TO_FLOAT4(q3);
    }
    int o = ob * OW + ox0;
    WR(out, o, oy, activate(s0, act, p0, p1));
    if (ox0 + 1 < OW)
        WR(out, o + 1, oy, activate(s1, act, p0, p1));
    if (ox0 + 2 < OW)
        WR(out, o + 2, oy, activate(s2, act, p0, p1));
    if (ox0 + 3 < OW)
        WR(out, o + 3, oy, activate(s3, act, p0, p1));
}

// 1x1, stride 1, no padding: 4 output pixels along w per work item
// texel x of a residual image added to a convolution's sums (res_c < 0:
// none): channel block ob of res_c channels, zeros past res_c (a channel
// Padding read through)
inline float4 residual(__read_only image2d_t res, int res_c, int ob, int x, int y)
{
    int n = res_c - ob * 4;
    if (res_c < 0 || n <= 0)
        return (float4)(0.f);
    float4 v = RD(res, x, y);
    return n >= 4 ? v : (float4)(v.x, n > 1 ? v.y : 0.f, n > 2 ? v.z : 0.f, 0.f);
}

// res (res_c >= 0): a same-shaped image added before the activation (the
// residual BinaryOp / Eltwise sum after the convolution, in its launch)
__kernel void conv2d_1x1(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                         __write_only image2d_t out, int C, int H, int W, int OB, int has_bias, int act, float p0,
                         float p1, __read_only image2d_t res, int res_c)
{
    int W4 = DIV4(W);
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= W4 * OB || oy >= H)
        return;
    int ob = x / W4, ox = (x % W4) * 4;
    float4 b = has_bias ? RD(bias, ob, 0) : (float4)(0.f);
    float4 s0 = b, s1 = b, s2 = b, s3 = b;
    int CB = DIV4(C);
    for (int cb = 0; cb < CB; cb++)
    {
        FLOAT4 w0 = RDH(filt, cb * 4 + 0, ob);
        FLOAT4 w1 = RDH(filt, cb * 4 + 1, ob);
        FLOAT4 w2 = RDH(filt, cb * 4 + 2, ob);
        FLOAT4 w3 = RDH(filt, cb * 4 + 3, ob);
        int base = cb * W + ox;
        // reads past W stay inside the image (next block) or clamp; their sums are not written
        FLOAT4 v0 = RDH(in, base, oy), v1 = RDH(in, base + 1, oy), v2 = RDH(in, base + 2, oy), v3 = RDH(in, base + 3, oy);
        s0 += TO_FLOAT4(v0.x * w0 + v0.y * w1 + v0.z * w2 + v0.w * w3);
        s1 += TO_FLOAT4(v1.x * w0 + v1.y * w1 + v1.z * w2 + v1.w * w3);
        s2 += TO_FLOAT4(v2.x * w0 + v2.y * w1 + v2.z * w2 + v2.w * w3);
        s3 += TO_FLOAT4(v3.x * w0 + v3.y * w1 + v3.z * w2 + v3.w * w3);
    }
    int o = ob * W + ox;
    WR(out, o, oy, activate(s0 + residual(res, res_c, ob, o, oy), act, p0, p1));
    if (ox + 1 < W)
        WR(out, o + 1, oy, activate(s1 + residual(res, res_c, ob, o + 1, oy), act, p0, p1));
    if (ox + 2 < W)
        WR(out, o + 2, oy, activate(s2 + residual(res, res_c, ob, o + 2, oy), act, p0, p1));
    if (ox + 3 < W)
        WR(out, o + 3, oy, activate(s3 + residual(res, res_c, ob, o + 3, oy), act, p0, p1));
}

// A depth-wise convolution (dwconv2d's arguments: C channels of an H x W
// input, filter [KH * KW, (C+3)/4], bias, activation dact) and the 1x1
// convolution after it (conv2d_1x1's: pfilt, pbias, OB output blocks,
// activation act, residual res) in one launch, 4 pixels of the OW x OH map
// a work item: the depth-wise sums are computed again for each output block
// (small maps only: the launch, not the arithmetic, is their cost)
__kernel void dwconv_1x1(__read_only image2d_t in, __read_only image2d_t dfilt, __read_only image2d_t dbias,
                         __read_only image2d_t pfilt, __read_only image2d_t pbias, __write_only image2d_t out, int C,
                         int H, int W, int OH, int OW, int kw, int kh, int sw, int sh, int dw, int dh, int pl, int pt,
                         float pad_value, int d_has_bias, int dact, float dp0, float dp1, int OB, int p_has_bias,
                         int act, float p0, float p1, __read_only image2d_t res, int res_c)
{
    int OW4 = DIV4(OW);
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW4 * OB || oy >= OH)
        return;
    int ob = x / OW4, ox0 = (x % OW4) * 4;
    float4 b = p_has_bias ? RD(pbias, ob, 0) : (float4)(0.f);
    float4 s[4] = {b, b, b, b};
    int CB = DIV4(C);
    const float4 padv = (float4)(pad_value);
    for (int cb = 0; cb < CB; cb++)
    {
        float4 w0 = RD(pfilt, cb * 4 + 0, ob);
        float4 w1 = RD(pfilt, cb * 4 + 1, ob);
        float4 w2 = RD(pfilt, cb * 4 + 2, ob);
        float4 w3 = RD(pfilt, cb * 4 + 3, ob);
        float4 db = d_has_bias ? RD(dbias, cb, 0) : (float4)(0.f);
        int left = C - cb * 4;
        for (int i = 0; i < 4; i++)
        {
            int ox = ox0 + i;
            float4 v = db;
            for (int ky = 0; ky < kh; ky++)
            {
                int iy = oy * sh + ky * dh - pt;
                bool yin = iy >= 0 && iy < H;
                for (int kx = 0; kx < kw; kx++)
                {
                    int ix = ox * sw + kx * dw - pl;
                    float4 t = (yin && ix >= 0 && ix < W) ? RD(in, cb * W + ix, iy) : padv;
                    v += t * RD(dfilt, ky * kw + kx, cb);
                }
            }
            v = activate(v, dact, dp0, dp1);
            if (left < 4)
                v = (float4)(v.x, left > 1 ? v.y : 0.f, left > 2 ? v.z : 0.f, 0.f);
            s[i] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
        }
    }
    for (int i = 0; i < 4; i++)
    {
        int ox = ox0 + i;
        if (ox < OW)
        {
            int o = ob * OW + ox;
            WR(out, o, oy, activate(s[i] + residual(res, res_c, ob, o, oy), act, p0, p1));
        }
    }
}

// depth-wise (multiplier 1): filter in the seeds' dw layout [KH * KW, (C+3)/4]
__kernel void dwconv2d(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                       __write_only image2d_t out, int C, int H, int W, int OH, int OW, int kw, int kh, int sw, int sh,
                       int dw, int dh, int pl, int pt, float pad_value, int has_bias, int act, float p0, float p1)
{
    int x = get_global_id(0), oy = get_global_id(1);
    int CB = DIV4(C);
    if (x >= OW * CB || oy >= OH)
        return;
    int cb = x / OW, ox = x % OW;
    float4 sum = has_bias ? RD(bias, cb, 0) : (float4)(0.f);
    const FLOAT4 padv = (FLOAT4)((FLOAT)pad_value);
    for (int ky = 0; ky < kh; ky++)
    {
        int iy = oy * sh + ky * dh - pt;
        bool yin = iy >= 0 && iy < H;
        FLOAT4 part = (FLOAT4)(0);
        for (int kx = 0; kx < kw; kx++)
        {
            int ix = ox * sw + kx * dw - pl;
            FLOAT4 v = (yin && ix >= 0 && ix < W) ? RDH(in, cb * W + ix, iy) : padv;
            part += v * RDH(filt, ky * kw + kx, cb);
        }
        sum += TO_FLOAT4(part);
    }
    WR(out, x, oy, activate(sum, act, p0, p1));
}

// InnerProduct: the input viewed flat (index c*H*W + y*W + x), the weights
// [num_output][K] in the conv-filter layout with H = W = 1: [K, (O+3)/4].
// One work group of 64 items per 4 outputs (launched with that local size):
// item lane covers the (channel block, position) pairs lane, lane + 64, ...,
// then a reduction in local memory (one item per 4 outputs walking all of K
// left most of the device idle on a classifier's few outputs)
__kernel void innerproduct(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                           __write_only image2d_t out, int C, int H, int W, int OB, int has_bias, int act, float p0,
                           float p1)
{
    __local float4 part[64];
    int ob = get_group_id(0);
    int lane = get_local_id(0);
    int CB = DIV4(C), HW = H * W;
    float4 sum = (float4)(0.f);
    for (int t = lane; t < CB * HW; t += 64)
    {
        int cb = t / HW, pos = t - cb * HW;
        int y = pos / W, x = pos - y * W;
        float4 v = TO_FLOAT4(RDH(in, cb * W + x, y));
        int base = cb * 4 * HW + pos;
        sum += v.x * TO_FLOAT4(RDH(filt, base, ob)) + v.y * TO_FLOAT4(RDH(filt, base + HW, ob))
               + v.z * TO_FLOAT4(RDH(filt, base + 2 * HW, ob)) + v.w * TO_FLOAT4(RDH(filt, base + 3 * HW, ob));
    }
    sum = group_sum64(part, lane, sum);
    if (lane == 0 && ob < OB)
        WR(out, ob, 0, activate(sum + (has_bias ? RD(bias, ob, 0) : (float4)(0.f)), act, p0, p1));
}

// Convolution whose seed filter image would exceed the device's image size
// (e.g. a 32x32 patch embedding): weights [O][I*KH*KW] in the width-major
// layout (NHWC 1, O, K, 1: pixel (kb, o) = w[o][kb*4..+3]), no padding
// lanes in k; one work item per output pixel (4 output channels)
inline FLOAT conv_tap(__read_only image2d_t in, int k, int kh, int kw, int oy, int ox, int sh, int sw, int dh,
                      int dw, int pt, int pl, int H, int W, int K, float pad_value)
{
    if (k >= K)
        return (FLOAT)0;
    int kx = k % kw, t = k / kw;
    int ky = t % kh, i = t / kh;
    int iy = oy * sh + ky * dh - pt, ix = ox * sw + kx * dw - pl;
    if (iy < 0 || iy >= H || ix < 0 || ix >= W)
        return (FLOAT)pad_value;
    FLOAT4 p = RDH(in, (i / 4) * W + ix, iy);
    int l = i % 4;
    return l == 0 ? p.x : l == 1 ? p.y : l == 2 ? p.z : p.w;
}

__kernel void conv2d_wide(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                          __write_only image2d_t out, int C, int H, int W, int O, int OH, int OW, int kw, int kh,
                          int sw, int sh, int dw, int dh, int pl, int pt, float pad_value, int has_bias, int act,
                          float p0, float p1)
{
    int x = get_global_id(0), oy = get_global_id(1);
    int OB = DIV4(O);
    if (x >= OW * OB || oy >= OH)
        return;
    int ob = x / OW, ox = x % OW;
    float4 sum = has_bias ? RD(bias, ob, 0) : (float4)(0.f);
    int K = C * kh * kw;
    int KB = DIV4(K);
    for (int kb = 0; kb < KB; kb++)
    {
        int k = kb * 4;
        FLOAT4 v = (FLOAT4)(conv_tap(in, k, kh, kw, oy, ox, sh, sw, dh, dw, pt, pl, H, W, K, pad_value),
                            conv_tap(in, k + 1, kh, kw, oy, ox, sh, sw, dh, dw, pt, pl, H, W, K, pad_value),
                            conv_tap(in, k + 2, kh, kw, oy, ox, sh, sw, dh, dw, pt, pl, H, W, K, pad_value),
                            conv_tap(in, k + 3, kh, kw, oy, ox, sh, sw, dh, dw, pt, pl, H, W, K, pad_value));
        FLOAT4 r;
        r.x = dot(v, RDH(filt, kb, ob * 4 + 0));
        r.y = dot(v, RDH(filt, kb, ob * 4 + 1));
        r.z = dot(v, RDH(filt, kb, ob * 4 + 2));
        r.w = dot(v, RDH(filt, kb, ob * 4 + 3));
        sum += TO_FLOAT4(r);
    }
    WR(out, x, oy, activate(sum, act, p0, p1));
}

// Grouped 2-D transposed convolution (DeconvolutionDepthWise) in gather form:
// output pixel (ocb * OW + ox, oy) makes output channels 4 ocb .. 4 ocb + 3,
// each the sum over its group's input channels and the taps whose stride
// grid lands on (oy, ox) of w[oc][ic][ky][kx] * in[ic][iy][ix]
// (iy * stride + ky * dilation - cut = oy), then bias and the activation.
// Weights and bias are float buffers; float arithmetic.
__kernel void deconv2d(__read_only image2d_t in, __global const float* w, __global const float* bias,
                       __write_only image2d_t out, int H, int W, int OC, int OH, int OW, int inch_g, int outch_g, int kw,
                       int kh, int dw, int dh, int sw, int sh, int cut_w, int cut_h, int bias_term, int act, float p0,
                       float p1)
{
    int xi = get_global_id(0), oy = get_global_id(1);
    if (xi >= OW * ((OC + 3) / 4) || oy >= OH)
        return;
    int ocb = xi / OW, ox = xi % OW;
    float r[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < 4; k++)
    {
        int oc = ocb * 4 + k;
        if (oc >= OC)
            break;
        int grp = oc / outch_g;
        float sum = bias_term ? bias[oc] : 0.f;
        for (int ic = 0; ic < inch_g; ic++)
        {
            int c = grp * inch_g + ic;
            int wbase = (oc * inch_g + ic) * kw * kh;
            for (int ky = 0; ky < kh; ky++)
            {
                int ty = oy + cut_h - ky * dh;
                if (ty < 0 || ty % sh != 0 || ty / sh >= H)
                    continue;
                int iy = ty / sh;
                for (int kx = 0; kx < kw; kx++)
                {
                    int tx = ox + cut_w - kx * dw;
                    if (tx < 0 || tx % sw != 0 || tx / sw >= W)
                        continue;
                    float4 v = RD(in, (c >> 2) * W + tx / sw, iy);
                    int l = c & 3;
                    float x = l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w;
                    sum += x * w[wbase + ky * kw + kx];
                }
            }
        }
        r[k] = sum;
    }
    WR(out, xi, oy, activate((float4)(r[0], r[1], r[2], r[3]), act, p0, p1));
}

// Grouped 2-D convolution (ConvolutionDepthWise with channels per group
// other than 1, or a depth multiplier): output pixel (ocb * OW + ox, oy)
// makes output channels 4 ocb .. 4 ocb + 3, each the sum over its group's
// input channels and taps of w[oc][ic][ky][kx] * in (pad_value outside),
// then bias and the activation. Weights and bias are float buffers; float
// arithmetic.
__kernel void conv2d_grouped(__read_only image2d_t in, __global const float* w, __global const float* bias,
                             __write_only image2d_t out, int H, int W, int OC, int OH, int OW, int inch_g, int outch_g,
                             int kw, int kh, int dw, int dh, int sw, int sh, int pl, int pt, float pad_value,
                             int bias_term, int act, float p0, float p1)
{
    int xi = get_global_id(0), oy = get_global_id(1);
    if (xi >= OW * ((OC + 3) / 4) || oy >= OH)
        return;
    int ocb = xi / OW, ox = xi % OW;
    float r[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < 4; k++)
    {
        int oc = ocb * 4 + k;
        if (oc >= OC)
            break;
        int grp = oc / outch_g;
        float sum = bias_term ? bias[oc] : 0.f;
        for (int ic = 0; ic < inch_g; ic++)
        {
            int c = grp * inch_g + ic;
            int l = c & 3;
            __global const float* wp = w + (oc * inch_g + ic) * kw * kh;
            for (int ky = 0; ky < kh; ky++)
            {
                int iy = oy * sh + ky * dh - pt;
                for (int kx = 0; kx < kw; kx++)
                {
                    int ix = ox * sw + kx * dw - pl;
                    float x = pad_value;
                    if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                    {
                        float4 v = RD(in, (c >> 2) * W + ix, iy);
                        x = l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w;
                    }
                    sum += x * wp[ky * kw + kx];
                }
            }
        }
        r[k] = sum;
    }
    WR(out, xi, oy, activate((float4)(r[0], r[1], r[2], r[3]), act, p0, p1));
}

// Grouped 2-D convolution whose groups have a multiple of 4 output
// channels (conv2d_grouped's arithmetic, blocked): one work item makes 4
// output channels (quad oq, all in one group) at 4 consecutive x positions,
// so every weight read serves 4 pixels and every input read 4 channels.
// Weights w[(oq * inch_g + ic) * taps + t] hold the float4 of the quad's 4
// output channels for input channel ic of the group and tap t. Groups whose
// input channel count is a multiple of 4 read whole input texels (4
// channels); others one lane per channel. Float arithmetic.
inline float lane_of(float4 v, int l)
{
    return l == 0 ? v.x : l == 1 ? v.y : l == 2 ? v.z : v.w;
}

__kernel void conv2d_grouped4(__read_only image2d_t in, __global const float4* w, __global const float* bias,
                              __write_only image2d_t out, int H, int W, int OC, int OH, int OW, int inch_g,
                              int outch_g, int kw, int kh, int dw, int dh, int sw, int sh, int pl, int pt,
                              float pad_value, int bias_term, int act, float p0, float p1)
{
    int OW4 = DIV4(OW), OQ = OC / 4;
    int xi = get_global_id(0), oy = get_global_id(1);
    if (xi >= OW4 * OQ || oy >= OH)
        return;
    int oq = xi / OW4, ox0 = (xi % OW4) * 4;
    int grp = oq * 4 / outch_g;
    float4 b = bias_term ? vload4(oq, bias) : (float4)(0.f);
    float4 s0 = b, s1 = b, s2 = b, s3 = b;
    int taps = kh * kw;
    const float4 padv = (float4)(pad_value);
    int x0 = ox0 * sw - pl;
    if ((inch_g & 3) == 0)
    {
        int cb0 = grp * inch_g / 4;
        for (int icb = 0; icb < inch_g / 4; icb++)
        {
            int cx = (cb0 + icb) * W;
            __global const float4* wp = w + (oq * inch_g + icb * 4) * taps;
            for (int ky = 0; ky < kh; ky++)
            {
                int iy = oy * sh + ky * dh - pt;
                bool yin = iy >= 0 && iy < H;
                for (int kx = 0; kx < kw; kx++)
                {
                    int t = ky * kw + kx;
                    float4 w0 = wp[t], w1 = wp[taps + t], w2 = wp[2 * taps + t], w3 = wp[3 * taps + t];
                    int ix = x0 + kx * dw;
                    float4 v0 = (yin && ix >= 0 && ix < W) ? RD(in, cx + ix, iy) : padv;
                    ix += sw;
                    float4 v1 = (yin && ix >= 0 && ix < W) ? RD(in, cx + ix, iy) : padv;
                    ix += sw;
                    float4 v2 = (yin && ix >= 0 && ix < W) ? RD(in, cx + ix, iy) : padv;
                    ix += sw;
                    float4 v3 = (yin && ix >= 0 && ix < W) ? RD(in, cx + ix, iy) : padv;
                    s0 += v0.x * w0 + v0.y * w1 + v0.z * w2 + v0.w * w3;
                    s1 += v1.x * w0 + v1.y * w1 + v1.z * w2 + v1.w * w3;
                    s2 += v2.x * w0 + v2.y * w1 + v2.z * w2 + v2.w * w3;
                    s3 += v3.x * w0 + v3.y * w1 + v3.z * w2 + v3.w * w3;
                }
            }
        }
    }
    else
    {
        for (int ic = 0; ic < inch_g; ic++)
        {
            int c = grp * inch_g + ic;
            int l = c & 3, cx = (c >> 2) * W;
            __global const float4* wp = w + (oq * inch_g + ic) * taps;
            for (int ky = 0; ky < kh; ky++)
            {
                int iy = oy * sh + ky * dh - pt;
                bool yin = iy >= 0 && iy < H;
                for (int kx = 0; kx < kw; kx++)
                {
                    float4 wt = wp[ky * kw + kx];
                    int ix = x0 + kx * dw;
                    float v0 = (yin && ix >= 0 && ix < W) ? lane_of(RD(in, cx + ix, iy), l) : pad_value;
                    ix += sw;
                    float v1 = (yin && ix >= 0 && ix < W) ? lane_of(RD(in, cx + ix, iy), l) : pad_value;
                    ix += sw;
                    float v2 = (yin && ix >= 0 && ix < W) ? lane_of(RD(in, cx + ix, iy), l) : pad_value;
                    ix += sw;
                    float v3 = (yin && ix >= 0 && ix < W) ? lane_of(RD(in, cx + ix, iy), l) : pad_value;
                    s0 += v0 * wt;
                    s1 += v1 * wt;
                    s2 += v2 * wt;
                    s3 += v3 * wt;
                }
            }
        }
    }
    int o = oq * OW + ox0;
    WR(out, o, oy, activate(s0, act, p0, p1));
    if (ox0 + 1 < OW)
        WR(out, o + 1, oy, activate(s1, act, p0, p1));
    if (ox0 + 2 < OW)
        WR(out, o + 2, oy, activate(s2, act, p0, p1));
    if (ox0 + 3 < OW)
        WR(out, o + 3, oy, activate(s3, act, p0, p1));
}

// InnerProduct whose conv-filter image would exceed the device's image width
// (num_input above it, e.g. VGG's fc6): the weights [O][K] in the width-major
// layout (pixel (kb, o) = w[o][kb*4..+3], zeros past K), the input read flat
// (element k in the Mat's order); one work group of 64 items per 4 outputs
// (launched with that local size), the blocks of 4 inputs strided over the
// items, then a reduction in local memory
__kernel void innerproduct_wide(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                                __write_only image2d_t out, int H, int W, int K, int O, int has_bias, int act, float p0,
                                float p1)
{
    __local float4 part[64];
    int ob = get_group_id(0);
    int lane = get_local_id(0);
    float s[4] = {0.f, 0.f, 0.f, 0.f};
    for (int kb = lane; kb < (K + 3) / 4; kb += 64)
    {
        int k = kb * 4;
        float4 v = (float4)(read_linear(in, k, H, W), k + 1 < K ? read_linear(in, k + 1, H, W) : 0.f,
                            k + 2 < K ? read_linear(in, k + 2, H, W) : 0.f, k + 3 < K ? read_linear(in, k + 3, H, W) : 0.f);
        for (int j = 0; j < 4; j++)
            if (ob * 4 + j < O)
                s[j] += dot(v, RD(filt, kb, ob * 4 + j));
    }
    float4 sum = group_sum64(part, lane, (float4)(s[0], s[1], s[2], s[3]));
    if (lane == 0 && ob * 4 < O)
        WR(out, ob, 0, activate(sum + (has_bias ? RD(bias, ob, 0) : (float4)(0.f)), act, p0, p1));
}

// InnerProduct over the rows of a dims-2 input (w = num_input K, h = rows:
// the row mode of layer/innerproduct.cpp, the transformers' Linear): input
// pixel (rb, k) holds element k of rows rb*4..+3, the filter is the
// conv-filter layout with H = W = 1 (pixel (k, ob) = w[ob*4..+3][k]) and the
// output dims 2 (w = N, h = rows), pixel (rb, n). One item per 4 rows x 4
// outputs; sums in float.
__kernel void innerproduct_rows(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t bias,
                                __write_only image2d_t out, int RB, int K, int OB, int N, int has_bias, int act,
                                float p0, float p1)
{
    int rb = get_global_id(0), ob = get_global_id(1);
    if (rb >= RB || ob >= OB)
        return;
    float4 s0 = (float4)(0.f), s1 = (float4)(0.f), s2 = (float4)(0.f), s3 = (float4)(0.f);
    for (int k = 0; k < K; k++)
    {
        float4 x = TO_FLOAT4(RDH(in, rb, k));
        float4 w = TO_FLOAT4(RDH(filt, k, ob));
        s0 += x * w.x;
        s1 += x * w.y;
        s2 += x * w.z;
        s3 += x * w.w;
    }
    float4 b = has_bias ? RD(bias, ob, 0) : (float4)(0.f);
    int n = ob * 4;
    WR(out, rb, n, activate(s0 + b.x, act, p0, p1));
    if (n + 1 < N)
        WR(out, rb, n + 1, activate(s1 + b.y, act, p0, p1));
    if (n + 2 < N)
        WR(out, rb, n + 2, activate(s2 + b.z, act, p0, p1));
    if (n + 3 < N)
        WR(out, rb, n + 3, activate(s3 + b.w, act, p0, p1));
}
