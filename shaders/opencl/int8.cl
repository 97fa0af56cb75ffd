// int8 Convolution, ConvolutionDepthWise and InnerProduct (int8_scale_term)
// with the CPU's arithmetic: the input is quantized with the bottom scale
// (round half away from zero, clamp to [-127, 127]) unless it already holds
// int8 values, products are summed in int32, and the sum is dequantized,
// biased, activated and, for int8 outputs, requantized with the same
// roundings as the CPU layers (layer/common/conv_kernel.h conv_int8_finish).
// Weights are int8 images (signed 8-bit RGBA channels, a quarter of the
// bytes of float ones: cl::upload_seed_layout_int8) read with read_imagei.
// This program is built
// without -cl-mad-enable and with contraction off so that every product and
// sum rounds as on the CPU.
#pragma OPENCL FP_CONTRACT OFF

// a texel of an int8 (CL_SIGNED_INT8) weight image
#define RDI(img, x, y) read_imagei(img, SAMPLER, (int2)((x), (y)))

// float2int8(v * s) (layer/common/int8.h): NaN gives 0
inline float4 quantize4(float4 v, float4 s)
{
    float4 p = v * s;
    float4 r = clamp(round(p), (float4)(-127.f), (float4)(127.f));
    return select(r, (float4)(0.f), isnan(p));
}

// float2int8_addhalf(p): add +-0.5 by the sign, truncate, clamp; what the
// truncation cannot convert (NaN, |a| >= 2^31) gives -127
inline float4 requantize_addhalf4(float4 p)
{
    float4 a = p + copysign((float4)(0.5f), p);
    float4 r = clamp(trunc(a), (float4)(-127.f), (float4)(127.f));
    int4 bad = isnan(a) | isgreaterequal(a, (float4)(2147483648.f)) | isless(a, (float4)(-2147483648.f));
    return select(r, (float4)(-127.f), bad);
}

// numerics: bit 0 fma(sum, scale_in, bias) in one rounding, else sum *
// scale_in then + bias; bit 1 requantize with add-half rounding, else
// float2int8. args: row 0 bias, row 1 scale_in, row 2 scale_out (requant)
inline float4 int8_finish(int4 sum, __read_only image2d_t args, int ob, int has_bias, int numerics, int requant,
                          int act, float p0, float p1)
{
    float4 s = convert_float4(sum);
    float4 b = has_bias ? RD(args, ob, 0) : (float4)(0.f);
    float4 si = RD(args, ob, 1);
    float4 v;
    if (numerics & 1)
    {
        v = fma(s, si, b);
    }
    else
    {
        v = s * si;
        if (has_bias)
            v = v + b;
    }
    v = activate(v, act, p0, p1);
    if (requant)
    {
        float4 so = RD(args, ob, 2);
        v = (numerics & 2) ? requantize_addhalf4(v * so) : quantize4(v, so);
    }
    return v;
}

// one input pixel as int8: pad_q outside, the value itself when the input
// holds int8 values, else quantized with `scale`
inline int4 int8_tap(__read_only image2d_t in, bool inside, int x, int y, float pad_q, int in_int8, float4 scale)
{
    if (!inside)
        return (int4)((int)pad_q);
    float4 v = RD(in, x, y);
    if (!in_int8)
        v = quantize4(v, scale);
    return convert_int4(v);
}

// Convolution, the filter in the seeds' conv-filter layout as conv2d
// (conv.cl); one work item per output pixel (4 output channels)
__kernel void conv2d_int8(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t args,
                          __write_only image2d_t out, int C, int H, int W, int OB, int OH, int OW, int kw, int kh,
                          int sw, int sh, int dw, int dh, int pl, int pt, float pad_q, int in_int8, float bottom_scale,
                          int has_bias, int numerics, int requant, int act, float p0, float p1)
{
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW * OB || oy >= OH)
        return;
    int ob = x / OW, ox = x % OW;
    int4 sum = (int4)(0);
    int taps = kh * kw;
    int CB = DIV4(C);
    float4 scale = (float4)(bottom_scale);
    for (int cb = 0; cb < CB; cb++)
    {
        for (int ky = 0; ky < kh; ky++)
        {
            int iy = oy * sh + ky * dh - pt;
            bool yin = iy >= 0 && iy < H;
            for (int kx = 0; kx < kw; kx++)
            {
                int ix = ox * sw + kx * dw - pl;
                int4 q = int8_tap(in, yin && ix >= 0 && ix < W, cb * W + ix, iy, pad_q, in_int8, scale);
                int n = ob * taps + ky * kw + kx;
                sum += q.x * RDI(filt, cb * 4 + 0, n);
                sum += q.y * RDI(filt, cb * 4 + 1, n);
                sum += q.z * RDI(filt, cb * 4 + 2, n);
                sum += q.w * RDI(filt, cb * 4 + 3, n);
            }
        }
    }
    WR(out, x, oy, int8_finish(sum, args, ob, has_bias, numerics, requant, act, p0, p1));
}

// the input of conv2d_int8_x4 quantized once (float2int8 with the layer's
// bottom scale) into an image of the same layout holding int8 values
__kernel void quantize_int8(__read_only image2d_t in, __write_only image2d_t out, int width, int height, float scale)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    WR(out, x, y, quantize4(RD(in, x, y), (float4)(scale)));
}

// Convolution on an input holding int8 values (an int8 blob, or
// quantize_int8's output): conv2d_int8's sums and epilogue with 4 output
// pixels along x per work item, so each filter texel is read once for the
// 4 (positions past OW read in-bounds taps or the pad and are not written)
__kernel void conv2d_int8_x4(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t args,
                             __write_only image2d_t out, int C, int H, int W, int OB, int OH, int OW, int kw, int kh,
                             int sw, int sh, int dw, int dh, int pl, int pt, float pad_q, int has_bias, int numerics,
                             int requant, int act, float p0, float p1)
{
    int OW4 = DIV4(OW);
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW4 * OB || oy >= OH)
        return;
    int ob = x / OW4, ox0 = (x % OW4) * 4;
    int4 s0 = (int4)(0), s1 = (int4)(0), s2 = (int4)(0), s3 = (int4)(0);
    int taps = kh * kw;
    int CB = DIV4(C);
    int4 padq = (int4)((int)pad_q);
    for (int cb = 0; cb < CB; cb++)
    {
        for (int ky = 0; ky < kh; ky++)
        {
            int iy = oy * sh + ky * dh - pt;
            bool yin = iy >= 0 && iy < H;
            for (int kx = 0; kx < kw; kx++)
            {
                int n = ob * taps + ky * kw + kx;
                int4 w0 = RDI(filt, cb * 4 + 0, n), w1 = RDI(filt, cb * 4 + 1, n);
                int4 w2 = RDI(filt, cb * 4 + 2, n), w3 = RDI(filt, cb * 4 + 3, n);
                int ix = ox0 * sw + kx * dw - pl;
                int4 q0 = (yin && ix >= 0 && ix < W) ? convert_int4(RD(in, cb * W + ix, iy)) : padq;
                ix += sw;
                int4 q1 = (yin && ix >= 0 && ix < W) ? convert_int4(RD(in, cb * W + ix, iy)) : padq;
                ix += sw;
                int4 q2 = (yin && ix >= 0 && ix < W) ? convert_int4(RD(in, cb * W + ix, iy)) : padq;
                ix += sw;
                int4 q3 = (yin && ix >= 0 && ix < W) ? convert_int4(RD(in, cb * W + ix, iy)) : padq;
                s0 += q0.x * w0 + q0.y * w1 + q0.z * w2 + q0.w * w3;
                s1 += q1.x * w0 + q1.y * w1 + q1.z * w2 + q1.w * w3;
                s2 += q2.x * w0 + q2.y * w1 + q2.z * w2 + q2.w * w3;
                s3 += q3.x * w0 + q3.y * w1 + q3.z * w2 + q3.w * w3;
            }
        }
    }
    int ox = ob * OW + ox0;
    WR(out, ox, oy, int8_finish(s0, args, ob, has_bias, numerics, requant, act, p0, p1));
    if (ox0 + 1 < OW)
        WR(out, ox + 1, oy, int8_finish(s1, args, ob, has_bias, numerics, requant, act, p0, p1));
    if (ox0 + 2 < OW)
        WR(out, ox + 2, oy, int8_finish(s2, args, ob, has_bias, numerics, requant, act, p0, p1));
    if (ox0 + 3 < OW)
        WR(out, ox + 3, oy, int8_finish(s3, args, ob, has_bias, numerics, requant, act, p0, p1));
}

// depth-wise (multiplier 1), the filter in the seeds' dw layout [KH * KW,
// (C+3)/4]; args row 3: the bottom scale of each channel
__kernel void dwconv2d_int8(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t args,
                            __write_only image2d_t out, int C, int H, int W, int OH, int OW, int kw, int kh, int sw,
                            int sh, int dw, int dh, int pl, int pt, float pad_q, int in_int8, int has_bias,
                            int numerics, int requant, int act, float p0, float p1)
{
    int x = get_global_id(0), oy = get_global_id(1);
    int CB = DIV4(C);
    if (x >= OW * CB || oy >= OH)
        return;
    int cb = x / OW, ox = x % OW;
    float4 scale = RD(args, cb, 3);
    int4 sum = (int4)(0);
    for (int ky = 0; ky < kh; ky++)
    {
        int iy = oy * sh + ky * dh - pt;
        bool yin = iy >= 0 && iy < H;
        for (int kx = 0; kx < kw; kx++)
        {
            int ix = ox * sw + kx * dw - pl;
            int4 q = int8_tap(in, yin && ix >= 0 && ix < W, cb * W + ix, iy, pad_q, in_int8, scale);
            sum += q * RDI(filt, ky * kw + kx, cb);
        }
    }
    WR(out, x, oy, int8_finish(sum, args, cb, has_bias, numerics, requant, act, p0, p1));
}

// group_sum64 (common.h.cl) on int32 sums (exact whatever the order)
KITE_GROUP_SUM64(group_isum64, int4)

// InnerProduct (fp32 output), the input viewed flat and the weights in the
// conv-filter layout with H = W = 1 as innerproduct (conv.cl): one work
// group of 64 items per 4 outputs (cl::run_groups64), item lane covering the
// (channel block, position) pairs lane, lane + 64, ..., then an int32
// reduction in local memory (integer sums: the CPU's values in any order)
__kernel void innerproduct_int8(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t args,
                                __write_only image2d_t out, int C, int H, int W, int OB, int in_int8,
                                float bottom_scale, int has_bias, int numerics, int act, float p0, float p1)
{
    __local int4 part[64];
    int ob = get_group_id(0);
    int lane = get_local_id(0);
    int4 sum = (int4)(0);
    int CB = DIV4(C), HW = H * W;
    float4 scale = (float4)(bottom_scale);
    for (int t = lane; t < CB * HW; t += 64)
    {
        int cb = t / HW, pos = t - cb * HW;
        int y = pos / W, x = pos - y * W;
        int4 q = int8_tap(in, true, cb * W + x, y, 0.f, in_int8, scale);
        int base = cb * 4 * HW + pos;
        sum += q.x * RDI(filt, base, ob) + q.y * RDI(filt, base + HW, ob) + q.z * RDI(filt, base + 2 * HW, ob)
               + q.w * RDI(filt, base + 3 * HW, ob);
    }
    sum = group_isum64(part, lane, sum);
    if (lane == 0 && ob < OB)
        WR(out, ob, 0, int8_finish(sum, args, ob, has_bias, numerics, 0, act, p0, p1));
}

// innerproduct_wide (conv.cl) with the int8 arithmetic of innerproduct_int8:
// one work group of 64 items per 4 outputs, the blocks of 4 inputs strided
// over the items, then the int32 reduction
__kernel void innerproduct_wide_int8(__read_only image2d_t in, __read_only image2d_t filt, __read_only image2d_t args,
                                     __write_only image2d_t out, int H, int W, int K, int O, int in_int8,
                                     float bottom_scale, int has_bias, int numerics, int act, float p0, float p1)
{
    __local int4 part[64];
    int ob = get_group_id(0);
    int lane = get_local_id(0);
    int s[4] = {0, 0, 0, 0};
    float4 scale = (float4)(bottom_scale);
    for (int kb = lane; kb < (K + 3) / 4; kb += 64)
    {
        int k = kb * 4;
        float4 v = (float4)(read_linear(in, k, H, W), k + 1 < K ? read_linear(in, k + 1, H, W) : 0.f,
                            k + 2 < K ? read_linear(in, k + 2, H, W) : 0.f, k + 3 < K ? read_linear(in, k + 3, H, W) : 0.f);
        if (!in_int8)
            v = quantize4(v, scale);
        int4 q = convert_int4(v);
        for (int j = 0; j < 4; j++)
        {
            if (ob * 4 + j < O)
            {
                int4 wq = RDI(filt, kb, ob * 4 + j);
                s[j] += q.x * wq.x + q.y * wq.y + q.z * wq.z + q.w * wq.w;
            }
        }
    }
    int4 sum = group_isum64(part, lane, (int4)(s[0], s[1], s[2], s[3]));
    if (lane == 0 && ob * 4 < O)
        WR(out, ob, 0, int8_finish(sum, args, ob, has_bias, numerics, 0, act, p0, p1));
}

// Convolution (dense) as an implicit GEMM through local-memory tiles (the
// design of shaders/vulkan/int8conv_gemm.comp): out[oc][pixel] = sum over
// k = (tap, input quad) of W[oc][k] * in[k][pixel], any kernel, stride,
// dilation and padding (the input tile is gathered tap by tap). A work group
// of TX x TY items (its local size, 16 x 16 or 8 x 8) makes 4 TY output
// channels x 4 TX output pixels; item (tx, ty) holds output quad ty of the
// tile at pixels tx + TX j, j < 4. K advances GKS = 4 (tap, input quad)
// pairs, 16 products, a step.
//
// Exact integer sums on the float pipeline: every operand is an integer of
// magnitude <= 128, so a product is below 2^14 and a sum of at most 1024 of
// them an integer below 2^24, which float holds exactly in any order. The
// float partial sums go into int32 totals every GFLUSH steps (512 products
// a lane); the totals are conv2d_int8's sums, and the epilogue is the same.
//
// Input: an image holding int8 values (quantize_int8's output or an int8
// blob). Weights: wt[(oq * KQ + kq) * 4 + l] holds, in lane j, the weight
// of output channel 4 oq + j, tap kq / CB and input channel 4 (kq % CB) + l
// (0 beyond the channel counts), KQ = kh * kw * CB.
//
// Split K (splits > 1, layers with few tiles and a long K): the work groups
// of split s = get_global_id(2) sum the pairs [s * kchunk, (s + 1) * kchunk)
// and store their int32 sums as two exact float halves (high 16 bits, low 16
// bits) in `part` rows (s * 2 + half) * OH + oy; conv2d_int8_splitk adds the
// splits and runs the epilogue.
#define GKS 4
#define GFLUSH 32
#define GMAXPX 64
#define GMAXOQ 16

__kernel void conv2d_int8_gemm(__read_only image2d_t in, __global const char4* wt, __read_only image2d_t args,
                               __write_only image2d_t out, int C, int H, int W, int O, int OH, int OW, int kw, int kh,
                               int sw, int sh, int dw, int dh, int pl, int pt, float pad_q, int has_bias, int numerics,
                               int requant, int act, float p0, float p1, int splits, int kchunk)
{
    __local float4 Is[GKS][GMAXPX];
    __local float4 Ws[GKS * 4][GMAXOQ + 1];
    const int TX = get_local_size(0), TY = get_local_size(1);
    const int NT = TX * TY, NPX = 4 * TX;
    int tx = get_local_id(0), ty = get_local_id(1);
    int lid = ty * TX + tx;
    int n = OW * OH;
    int CB = DIV4(C), OQ = DIV4(O);
    int kq_total = kh * kw * CB;
    int split = get_global_id(2);
    int kbeg = split * kchunk;
    int kend = min(kq_total, kbeg + kchunk);
    int j0 = (get_global_id(0) / TX) * NPX;
    int oq0 = (get_global_id(1) / TY) * TY;

    // this item's input staging: pixel spx of the tile for the K pairs
    // lid / NPX + i * (NT / NPX) of each step (ei of them)
    int spx = lid % NPX;
    int sj = j0 + spx;
    bool svalid = sj < n;
    int soy = svalid ? sj / OW : 0;
    int ix0 = (sj - soy * OW) * sw - pl;
    int iy0 = soy * sh - pt;
    int ei = (GKS * NPX) / NT;
    int kstep = NT / NPX;
    int sky[4], skx[4], sq[4];
    for (int i = 0; i < 4; i++)
    {
        int kq = kbeg + lid / NPX + i * kstep;
        int t = kq / CB;
        sq[i] = kq - t * CB;
        sky[i] = t / kw;
        skx[i] = t - sky[i] * kw;
    }

    float4 acc[4];
    int4 tot[4];
    for (int j = 0; j < 4; j++)
    {
        acc[j] = (float4)(0.f);
        tot[j] = (int4)(0);
    }
    int since = 0;
    const float4 padv = (float4)(pad_q);
    for (int k0 = kbeg; k0 < kend; k0 += GKS)
    {
        for (int i = 0; i < ei; i++)
        {
            int kql = lid / NPX + i * kstep;
            float4 v = (float4)(0.f);
            if (k0 + kql < kend && svalid)
            {
                int y = iy0 + sky[i] * dh;
                int x = ix0 + skx[i] * dw;
                v = (y >= 0 && y < H && x >= 0 && x < W) ? RD(in, sq[i] * W + x, y) : padv;
            }
            Is[kql][spx] = v;
            // the next step's pair of this slot
            sq[i] += GKS;
            while (sq[i] >= CB)
            {
                sq[i] -= CB;
                if (++skx[i] == kw)
                {
                    skx[i] = 0;
                    sky[i]++;
                }
            }
        }
        for (int e = lid; e < GKS * 4 * TY; e += NT)
        {
            int wk = e % (GKS * 4);
            int woq = e / (GKS * 4);
            int kq = k0 + wk / 4;
            float4 wv = (float4)(0.f);
            if (oq0 + woq < OQ && kq < kend)
                wv = convert_float4(wt[((oq0 + woq) * kq_total + kq) * 4 + wk % 4]);
            Ws[wk][woq] = wv;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = 0; s < GKS; s++)
        {
            float4 w0 = Ws[s * 4][ty], w1 = Ws[s * 4 + 1][ty], w2 = Ws[s * 4 + 2][ty], w3 = Ws[s * 4 + 3][ty];
            for (int j = 0; j < 4; j++)
            {
                float4 v = Is[s][tx + TX * j];
                acc[j] += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (++since == GFLUSH)
        {
            since = 0;
            for (int j = 0; j < 4; j++)
            {
                tot[j] += convert_int4(acc[j]);
                acc[j] = (float4)(0.f);
            }
        }
    }
    for (int j = 0; j < 4; j++)
        tot[j] += convert_int4(acc[j]);

    int oq = oq0 + ty;
    if (oq >= OQ)
        return;
    for (int j = 0; j < 4; j++)
    {
        int jj = j0 + tx + TX * j;
        if (jj >= n)
            continue;
        int oy = jj / OW, ox = jj - oy * OW;
        if (splits > 1)
        {
            int4 hi = tot[j] >> 16;
            int4 lo = tot[j] & 0xffff;
            WR(out, oq * OW + ox, (split * 2) * OH + oy, convert_float4(hi));
            WR(out, oq * OW + ox, (split * 2 + 1) * OH + oy, convert_float4(lo));
        }
        else
            WR(out, oq * OW + ox, oy, int8_finish(tot[j], args, oq, has_bias, numerics, requant, act, p0, p1));
    }
}

// the splits of conv2d_int8_gemm added up (exact int32 sums) and finished
__kernel void conv2d_int8_splitk(__read_only image2d_t part, __read_only image2d_t args, __write_only image2d_t out,
                                 int OQ, int OH, int OW, int splits, int has_bias, int numerics, int requant, int act,
                                 float p0, float p1)
{
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OQ * OW || oy >= OH)
        return;
    int4 sum = (int4)(0);
    for (int s = 0; s < splits; s++)
    {
        int4 hi = convert_int4(RD(part, x, (s * 2) * OH + oy));
        int4 lo = convert_int4(RD(part, x, (s * 2 + 1) * OH + oy));
        sum += hi * 65536 + lo;
    }
    WR(out, x, oy, int8_finish(sum, args, x / OW, has_bias, numerics, requant, act, p0, p1));
}
