// Data movement between channel-major images: concat, crop/slice, channel
// gathers, reshapes and permutes. Tensors are (C, H, W) as cl_layout.h maps
// kite's dims; the linear (kite) index of element (c, y, x) is (c*H + y)*W + x.

inline float lane(float4 v, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

inline float read_elem(__read_only image2d_t img, int c, int y, int x, int W)
{
    return lane(RD(img, (c / 4) * W + x, y), c % 4);
}

// natural texel (x, y) of an image whose natural width is niw, natural or
// folded (cl_layout.h: texel t = y * niw + x at (t % F, t / F), F the image
// width; folded exactly when F != niw)
inline float4 rd_fold(__read_only image2d_t img, int x, int y, int niw)
{
    const int F = get_image_width(img);
    if (F == niw)
        return RD(img, x, y);
    const int t = y * niw + x;
    return RD(img, t % F, t / F);
}

inline void wr_fold(__write_only image2d_t img, int x, int y, int niw, float4 v)
{
    const int F = get_image_width(img);
    if (F == niw)
    {
        WR(img, x, y, v);
        return;
    }
    const int t = y * niw + x;
    WR(img, t % F, t / F, v);
}

// element (c, y, x) of a channel-major (C, H, W) image, natural or folded
inline float read_elem_fold(__read_only image2d_t img, int c, int y, int x, int C, int W)
{
    return lane(rd_fold(img, (c / 4) * W + x, y, W * DIV4(C)), c % 4);
}

// concatenate up to 4 tensors along C (unused inputs: pass any image, C = 0)
__kernel void concat_c(__read_only image2d_t a, __read_only image2d_t b, __read_only image2d_t c,
                       __read_only image2d_t d, __write_only image2d_t out, int Ca, int Cb, int Cc, int Cd, int H, int W)
{
    int x = get_global_id(0), y = get_global_id(1);
    int CO = Ca + Cb + Cc + Cd;
    if (x >= W * DIV4(CO) || y >= H)
        return;
    int ob = x / W, w = x % W;
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int ch = ob * 4 + k;
        float r = 0.f;
        if (ch < Ca)
            r = read_elem(a, ch, y, w, W);
        else if (ch < Ca + Cb)
            r = read_elem(b, ch - Ca, y, w, W);
        else if (ch < Ca + Cb + Cc)
            r = read_elem(c, ch - Ca - Cb, y, w, W);
        else if (ch < CO)
            r = read_elem(d, ch - Ca - Cb - Cc, y, w, W);
        v[k] = r;
    }
    WR(out, x, y, (float4)(v[0], v[1], v[2], v[3]));
}

// out(c, y, x) = in(c + oc, y + oy, x + ox): Crop and Slice
__kernel void crop(__read_only image2d_t in, __write_only image2d_t out, int W, int OC, int OH, int OW, int oc, int oy,
                   int ox)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= OW * DIV4(OC) || y >= OH)
        return;
    int ob = x / OW, w = x % OW;
    if (oc % 4 == 0)
    {
        float4 q = RD(in, (ob + oc / 4) * W + w + ox, y + oy);
        int left = OC - ob * 4;
        if (left < 4)
            q = (float4)(q.x, left > 1 ? q.y : 0.f, left > 2 ? q.z : 0.f, 0.f);
        WR(out, x, y, q);
        return;
    }
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int ch = ob * 4 + k;
        v[k] = ch < OC ? read_elem(in, ch + oc, y + oy, w + ox, W) : 0.f;
    }
    WR(out, x, y, (float4)(v[0], v[1], v[2], v[3]));
}

// ShuffleChannel: out channel c takes in channel (c % g) * (C / g) + c / g
// (reverse: (c % (C/g)) * g + c / (C/g))
__kernel void shuffle_c(__read_only image2d_t in, __write_only image2d_t out, int C, int H, int W, int g, int reverse)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= W * DIV4(C) || y >= H)
        return;
    int ob = x / W, w = x % W;
    int cpg = C / g;
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int ch = ob * 4 + k;
        int src = reverse ? (ch % cpg) * g + ch / cpg : (ch % g) * cpg + ch / g;
        v[k] = ch < C ? read_elem(in, src, y, w, W) : 0.f;
    }
    WR(out, x, y, (float4)(v[0], v[1], v[2], v[3]));
}

// general remap: output element (c, y, x) reads the input element of linear
// index c*s0 + y*s1 + x*s2 (Reshape/Flatten: natural strides; Permute:
// the permuted input strides)
__kernel void remap(__read_only image2d_t in, __write_only image2d_t out, int IH, int IW, int OC, int OH, int OW,
                    int s0, int s1, int s2)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= OW * DIV4(OC) || y >= OH)
        return;
    int ob = x / OW, w = x % OW;
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int ch = ob * 4 + k;
        float r = 0.f;
        if (ch < OC)
        {
            int idx = ch * s0 + y * s1 + w * s2;
            int ix = idx % IW;
            int t = idx / IW;
            r = read_elem(in, t / IH, t % IH, ix, IW);
        }
        v[k] = r;
    }
    WR(out, x, y, (float4)(v[0], v[1], v[2], v[3]));
}

// softmax along C (one work item per (x, y)), H or W (one per pixel column/row
// of a channel block)
__kernel void softmax_c(__read_only image2d_t in, __write_only image2d_t out, int C, int H, int W)
{
    int w = get_global_id(0), y = get_global_id(1);
    if (w >= W || y >= H)
        return;
    int CB = DIV4(C), NIW = W * CB; // natural or folded images (rd_fold)
    float m = -FLT_MAX;
    for (int cb = 0; cb < CB; cb++)
    {
        float4 v = rd_fold(in, cb * W + w, y, NIW);
        int left = C - cb * 4;
        m = fmax(m, v.x);
        if (left > 1) m = fmax(m, v.y);
        if (left > 2) m = fmax(m, v.z);
        if (left > 3) m = fmax(m, v.w);
    }
    float s = 0.f;
    for (int cb = 0; cb < CB; cb++)
    {
        float4 e = exp(rd_fold(in, cb * W + w, y, NIW) - m);
        int left = C - cb * 4;
        s += e.x + (left > 1 ? e.y : 0.f) + (left > 2 ? e.z : 0.f) + (left > 3 ? e.w : 0.f);
    }
    for (int cb = 0; cb < CB; cb++)
        wr_fold(out, cb * W + w, y, NIW, exp(rd_fold(in, cb * W + w, y, NIW) - m) / s);
}

// along H (dir 0: x = pixel column, loop y) or W (dir 1: y = row, loop x within the block)
__kernel void softmax_hw(__read_only image2d_t in, __write_only image2d_t out, int CB, int H, int W, int dir)
{
    int i = get_global_id(0), j = get_global_id(1);
    int n, stride_x, stride_y, x0, y0;
    if (dir == 0)
    {
        if (i >= W * CB || j > 0)
            return;
        n = H; x0 = i; y0 = 0; stride_x = 0; stride_y = 1;
    }
    else
    {
        if (i >= CB || j >= H)
            return;
        n = W; x0 = i * W; y0 = j; stride_x = 1; stride_y = 0;
    }
    const int NIW = W * CB; // natural or folded images (rd_fold)
    float4 m = (float4)(-FLT_MAX);
    for (int t = 0; t < n; t++)
        m = fmax(m, rd_fold(in, x0 + t * stride_x, y0 + t * stride_y, NIW));
    float4 s = (float4)(0.f);
    for (int t = 0; t < n; t++)
        s += exp(rd_fold(in, x0 + t * stride_x, y0 + t * stride_y, NIW) - m);
    for (int t = 0; t < n; t++)
        wr_fold(out, x0 + t * stride_x, y0 + t * stride_y, NIW,
                exp(rd_fold(in, x0 + t * stride_x, y0 + t * stride_y, NIW) - m) / s);
}

// out lane = input element named by the index map (global index over the
// inputs; meta holds (offset, C, H, W) per input)
inline float gather_one(__read_only image2d_t i0, __read_only image2d_t i1, __read_only image2d_t i2,
                        __read_only image2d_t i3, __read_only image2d_t i4, __read_only image2d_t i5,
                        __read_only image2d_t i6, __read_only image2d_t i7, int n, __constant int* meta, int idx)
{
    int t = 0;
    while (t + 1 < n && idx >= meta[(t + 1) * 4])
        t++;
    int li = idx - meta[t * 4];
    int C = meta[t * 4 + 1], H = meta[t * 4 + 2], W = meta[t * 4 + 3];
    int xx = li % W;
    int r = li / W;
    int yy = r % H, c = r / H;
    // inputs natural or folded (cl_layout.h)
    switch (t)
    {
    case 0: return read_elem_fold(i0, c, yy, xx, C, W);
    case 1: return read_elem_fold(i1, c, yy, xx, C, W);
    case 2: return read_elem_fold(i2, c, yy, xx, C, W);
    case 3: return read_elem_fold(i3, c, yy, xx, C, W);
    case 4: return read_elem_fold(i4, c, yy, xx, C, W);
    case 5: return read_elem_fold(i5, c, yy, xx, C, W);
    case 6: return read_elem_fold(i6, c, yy, xx, C, W);
    default: return read_elem_fold(i7, c, yy, xx, C, W);
    }
}

__kernel void gather(__read_only image2d_t map, __read_only image2d_t i0, __read_only image2d_t i1,
                     __read_only image2d_t i2, __read_only image2d_t i3, __read_only image2d_t i4,
                     __read_only image2d_t i5, __read_only image2d_t i6, __read_only image2d_t i7,
                     __write_only image2d_t out, int iw, int ih, int n, __constant int* meta, __global const float* fill)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= ih)
        return;
    // a negative index -k-1 is the constant fill[k] (Padding)
    int4 m = convert_int4(RD(map, x, y));
    float4 r;
    r.x = m.x < 0 ? fill[-m.x - 1] : gather_one(i0, i1, i2, i3, i4, i5, i6, i7, n, meta, m.x);
    r.y = m.y < 0 ? fill[-m.y - 1] : gather_one(i0, i1, i2, i3, i4, i5, i6, i7, n, meta, m.y);
    r.z = m.z < 0 ? fill[-m.z - 1] : gather_one(i0, i1, i2, i3, i4, i5, i6, i7, n, meta, m.z);
    r.w = m.w < 0 ? fill[-m.w - 1] : gather_one(i0, i1, i2, i3, i4, i5, i6, i7, n, meta, m.w);
    WR(out, x, y, r);
}

// one output element of Reduction (layer/gpu/reduction_plan.h): the input as
// 4 axes ext (c, d, h, w outermost first), red the reduced ones; output
// element o is the kept axes' coordinates, w fastest. Ops as
// Reduction::Operation, accumulated in float in the reference's order.
inline float reduce_one(__read_only image2d_t in, int IH, int IW, int4 ext, int4 red, int rcount, int op, float coeff,
                        int o)
{
    int b[4];
    int e[4] = {ext.x, ext.y, ext.z, ext.w};
    int rd[4] = {red.x, red.y, red.z, red.w};
    for (int a = 3; a >= 0; a--)
    {
        b[a] = 0;
        if (rd[a] == 0)
        {
            b[a] = o % e[a];
            o /= e[a];
        }
    }
    float acc = op == 4 ? -FLT_MAX : (op == 5 ? FLT_MAX : (op == 6 ? 1.f : 0.f));
    for (int r = 0; r < rcount; r++)
    {
        int c[4] = {b[0], b[1], b[2], b[3]};
        int u = r;
        for (int a = 3; a >= 0; a--)
        {
            if (rd[a] != 0)
            {
                c[a] = u % e[a];
                u /= e[a];
            }
        }
        float x = read_linear(in, ((c[0] * e[1] + c[1]) * e[2] + c[2]) * e[3] + c[3], IH, IW);
        if (op == 1 || op == 7)
            acc += fabs(x);
        else if (op == 2 || op == 8)
            acc += x * x;
        else if (op == 4)
            acc = fmax(acc, x);
        else if (op == 5)
            acc = fmin(acc, x);
        else if (op == 6)
            acc *= x;
        else if (op == 10)
            acc += exp(x);
        else
            acc += x;
    }
    if (op == 3)
        acc = acc / (float)rcount;
    else if (op == 8)
        acc = sqrt(acc);
    else if (op == 9 || op == 10)
        acc = log(acc);
    return acc * coeff;
}

// partial results of a work group of 64 combined as Reduction's op does
inline float4 group_reduce64(__local float4* part, int lane, float4 v, int op)
{
    part[lane] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 32; step > 0; step >>= 1)
    {
        if (lane < step)
        {
            float4 a = part[lane], b = part[lane + step];
            part[lane] = op == 4 ? fmax(a, b) : op == 5 ? fmin(a, b) : op == 6 ? a * b : a + b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return part[0];
}

// reduce with one work group of 64 per output pixel (4 output elements):
// lane l takes elements l, l + 64, ... of each output's rcount; for long
// reductions over few outputs (the squeeze-excitation means over H x W)
__kernel void reduce_wg(__read_only image2d_t in, __write_only image2d_t out, int IH, int IW, int OC, int OH, int OW,
                        int e0, int e1, int e2, int e3, int r0, int r1, int r2, int r3, int rcount, int op, float coeff)
{
    __local float4 part[64];
    const int lane = get_local_id(0), pix = get_group_id(0);
    const int xi = pix % (OW * ((OC + 3) / 4)), y = pix / (OW * ((OC + 3) / 4));
    const int cb = xi / OW, x = xi % OW;
    int e[4] = {e0, e1, e2, e3};
    int rd[4] = {r0, r1, r2, r3};
    const float init = op == 4 ? -FLT_MAX : (op == 5 ? FLT_MAX : (op == 6 ? 1.f : 0.f));
    float acc[4] = {init, init, init, init};
    for (int k = 0; k < 4; k++)
    {
        const int c = cb * 4 + k;
        if (c >= OC)
            break;
        // the kept axes' coordinates of output element o (w fastest)
        int o = (c * OH + y) * OW + x;
        int b[4];
        for (int a = 3; a >= 0; a--)
        {
            b[a] = 0;
            if (rd[a] == 0)
            {
                b[a] = o % e[a];
                o /= e[a];
            }
        }
        float t = init;
        for (int r = lane; r < rcount; r += 64)
        {
            int cc[4] = {b[0], b[1], b[2], b[3]};
            int u = r;
            for (int a = 3; a >= 0; a--)
            {
                if (rd[a] != 0)
                {
                    cc[a] = u % e[a];
                    u /= e[a];
                }
            }
            const float v = read_linear(in, ((cc[0] * e[1] + cc[1]) * e[2] + cc[2]) * e[3] + cc[3], IH, IW);
            if (op == 1 || op == 7)
                t += fabs(v);
            else if (op == 2 || op == 8)
                t += v * v;
            else if (op == 4)
                t = fmax(t, v);
            else if (op == 5)
                t = fmin(t, v);
            else if (op == 6)
                t *= v;
            else if (op == 10)
                t += exp(v);
            else
                t += v;
        }
        acc[k] = t;
    }
    float4 r = group_reduce64(part, lane, (float4)(acc[0], acc[1], acc[2], acc[3]), op);
    if (lane != 0 || y >= OH)
        return;
    float res[4] = {r.x, r.y, r.z, r.w};
    for (int k = 0; k < 4; k++)
    {
        float a = res[k];
        if (op == 3)
            a = a / (float)rcount;
        else if (op == 8)
            a = sqrt(a);
        else if (op == 9 || op == 10)
            a = log(a);
        res[k] = cb * 4 + k < OC ? a * coeff : 0.f;
    }
    WR(out, xi, y, (float4)(res[0], res[1], res[2], res[3]));
}

__kernel void reduce(__read_only image2d_t in, __write_only image2d_t out, int IH, int IW, int OC, int OH, int OW,
                     int e0, int e1, int e2, int e3, int r0, int r1, int r2, int r3, int rcount, int op, float coeff)
{
    int4 ext = (int4)(e0, e1, e2, e3), red = (int4)(r0, r1, r2, r3);
    int xi = get_global_id(0), y = get_global_id(1);
    if (xi >= OW * ((OC + 3) / 4) || y >= OH)
        return;
    int cb = xi / OW, x = xi % OW;
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < 4; k++)
    {
        int c = cb * 4 + k;
        if (c < OC)
            v[k] = reduce_one(in, IH, IW, ext, red, rcount, op, coeff, (c * OH + y) * OW + x);
    }
    WR(out, xi, y, (float4)(v[0], v[1], v[2], v[3]));
}

// Interp (layer/gpu/interp_plan.h): output pixel (xi, y) holds 4 output
// elements; element o (Mat order) is plane c, row oy, column ox of the plan's
// C x OH x OW view, made from the taps of both axes (rows first, then
// blended) as the reference does. The images are channel-major of (IH, IW)
// and (OC, OH_img, OW_img) per cl_layout.h.
__kernel void interp(__read_only image2d_t in, __global const float* t, __write_only image2d_t out, int IH, int IW,
                     int OCi, int OHi, int OWi, int H, int W, int OH, int OW, int ntx, int nty)
{
    int xi = get_global_id(0), y = get_global_id(1);
    if (xi >= OWi * ((OCi + 3) / 4) || y >= OHi)
        return;
    int cb = xi / OWi, x = xi % OWi;
    const int xa = OW, yo = OW * (1 + ntx), ya = yo + OH;
    float r[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k = 0; k < 4; k++)
    {
        int ci = cb * 4 + k;
        if (ci >= OCi)
            break;
        int o = (ci * OHi + y) * OWi + x;
        int c = o / (OH * OW);
        int rem = o % (OH * OW);
        int oy = rem / OW, ox = rem % OW;
        int sx0 = (int)t[ox], sy0 = (int)t[yo + oy];
        float v = 0.f;
        for (int ky = 0; ky < nty; ky++)
        {
            int sy = clamp(sy0 + ky, 0, H - 1);
            float row = 0.f;
            for (int kx = 0; kx < ntx; kx++)
            {
                int sx = clamp(sx0 + kx, 0, W - 1);
                row += read_linear(in, (c * H + sy) * W + sx, IH, IW) * t[xa + ox * ntx + kx];
            }
            v += row * t[ya + oy * nty + ky];
        }
        r[k] = v;
    }
    WR(out, xi, y, (float4)(r[0], r[1], r[2], r[3]));
}

// Slice along the channel-major C (axis 0 of any dims) into up to 4 outputs
// in one launch: output k takes channels [s_k, s_k + n_k) of the input seen
// through a ShuffleChannel not yet applied (g > 0: channel c of the shuffled
// blob is input channel (c % g) * (C / g) + c / g, reverse as shuffle_c;
// g = 0: none), the input being the channel concat of `in` (its first Ca
// channels) and `in2` (the rest; Ca = C: all from in). iw: the widest
// output image's width.
inline float4 slice_texel(__read_only image2d_t in, __read_only image2d_t in2, int Ca, int C, int W, int g, int reverse,
                          int s, int n, int x, int y)
{
    int ob = x / W, w = x % W;
    if (g == 0 && (s & 3) == 0 && ob * 4 + 3 < n && s + ob * 4 + 3 < Ca)
        return RD(in, (s / 4 + ob) * W + w, y);
    int cpg = g > 0 ? C / g : 1;
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int ch = ob * 4 + k, c = s + ch;
        int src = g == 0 ? c : reverse ? (c % cpg) * g + c / cpg : (c % g) * cpg + c / g;
        v[k] = ch >= n ? 0.f : src < Ca ? read_elem(in, src, y, w, W) : read_elem(in2, src - Ca, y, w, W);
    }
    return (float4)(v[0], v[1], v[2], v[3]);
}

__kernel void slice_c(__read_only image2d_t in, __read_only image2d_t in2, __write_only image2d_t o0,
                      __write_only image2d_t o1, __write_only image2d_t o2, __write_only image2d_t o3, int nout, int Ca,
                      int C, int H, int W, int g, int reverse, int s0, int s1, int s2, int s3, int n0, int n1, int n2,
                      int n3, int iw)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= iw || y >= H)
        return;
    if (x < W * DIV4(n0))
        WR(o0, x, y, slice_texel(in, in2, Ca, C, W, g, reverse, s0, n0, x, y));
    if (nout > 1 && x < W * DIV4(n1))
        WR(o1, x, y, slice_texel(in, in2, Ca, C, W, g, reverse, s1, n1, x, y));
    if (nout > 2 && x < W * DIV4(n2))
        WR(o2, x, y, slice_texel(in, in2, Ca, C, W, g, reverse, s2, n2, x, y));
    if (nout > 3 && x < W * DIV4(n3))
        WR(o3, x, y, slice_texel(in, in2, Ca, C, W, g, reverse, s3, n3, x, y));
}

// Constant Padding after the last channel and around the plane: out (Co
// channels, OH x OW) is in (Cs channels, H x W) moved by (top, left), value
// everywhere else (the lanes of in's last block past Cs are not read)
__kernel void pad_const(__read_only image2d_t in, __write_only image2d_t out, int Cs, int H, int W, int Co, int OH,
                        int OW, int top, int left, float value)
{
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW * DIV4(Co) || oy >= OH)
        return;
    int ob = x / OW, ox = x % OW;
    int iy = oy - top, ix = ox - left, n = Cs - ob * 4;
    float4 q = (float4)(value);
    if (iy >= 0 && iy < H && ix >= 0 && ix < W && n > 0)
    {
        float4 v = RD(in, ob * W + ix, iy);
        q = n >= 4 ? v : (float4)(v.x, n > 1 ? v.y : value, n > 2 ? v.z : value, value);
    }
    WR(out, x, oy, q);
}
