// Buffers <-> RGBA images, in the layouts of seeds 000/001 (MACE's image
// storage). Every kernel runs one work item per image pixel (x = i, y = j of
// the seeds' tables) and handles the 4 elements k = 0..3 of that pixel;
// elements past the tensor's end are 0 in the image and skipped in buffers.

// kite Mat (fp32, elempack p; element (c, y, x) at (c/p)*gs + (y*W + x)*p + c%p)
// <-> channel-major image [W * (C+3)/4, H] (N = 1), natural or folded
// (cl_layout.h: natural texel t = y * NIW + x at (t % F, t / F) of an image F
// wide; folded exactly when F != NIW). One work item per image pixel; the
// pixels past a folded image's last texel are 0.
inline int2 natural_texel(int i, int j, int F, int NIW)
{
    if (F == NIW)
        return (int2)(i, j);
    int t = j * F + i;
    return (int2)(t % NIW, t / NIW);
}

__kernel void mat_to_image(__global const float* src, __write_only image2d_t dst, int C, int H, int W, int p, int gs)
{
    int i = get_global_id(0), j = get_global_id(1);
    const int F = get_image_width(dst);
    if (i >= F || j >= get_image_height(dst))
        return;
    int2 n = natural_texel(i, j, F, W * DIV4(C));
    if (n.y >= H)
    {
        WR(dst, i, j, (float4)(0.f));
        return;
    }
    int w = n.x % W, cb = n.x / W;
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int c = cb * 4 + k;
        v[k] = c < C ? src[(c / p) * gs + (n.y * W + w) * p + c % p] : 0.f;
    }
    WR(dst, i, j, (float4)(v[0], v[1], v[2], v[3]));
}

__kernel void image_to_mat(__read_only image2d_t src, __global float* dst, int C, int H, int W, int p, int gs)
{
    int i = get_global_id(0), j = get_global_id(1);
    const int F = get_image_width(src);
    if (i >= F || j >= get_image_height(src))
        return;
    int2 n = natural_texel(i, j, F, W * DIV4(C));
    if (n.y >= H)
        return;
    int w = n.x % W, cb = n.x / W;
    float4 q = RD(src, i, j);
    float v[4] = {q.x, q.y, q.z, q.w};
    for (int k = 0; k < 4; k++)
    {
        int c = cb * 4 + k;
        if (c < C)
            dst[(c / p) * gs + (n.y * W + w) * p + c % p] = v[k];
    }
}

// The buffer index of element k of image pixel (i, j) for each seed layout,
// or -1 where the pixel lane lies past the tensor. a, b, c, d are the
// layout's dimensions: NHWC (N, H, W, C) for the activations, OIHW for the
// convolution filter, (I, H, W) for the depth-wise filter, (W) for 1-D.
#define L_CHANNEL 0
#define L_HEIGHT 1
#define L_WIDTH 2
#define L_CONV_FILTER 3
#define L_DW_FILTER 4
#define L_ARG 5

inline int layout_index(int layout, int i, int j, int k, int a, int b, int c, int d)
{
    if (layout == L_CHANNEL)
    {
        // [W * (C+3)/4, N * H]: n = j/H, h = j%H, w = i%W, c = i/W*4 + k
        int N = a, H = b, W = c, C = d;
        int n = j / H, h = j % H, w = i % W, ch = i / W * 4 + k;
        return (n < N && ch < C) ? ((n * H + h) * W + w) * C + ch : -1;
    }
    if (layout == L_HEIGHT)
    {
        // [W * C, N * (H+3)/4]: n = j%N, h = j/N*4 + k, w = i%W, c = i/W
        int N = a, H = b, W = c, C = d;
        int n = j % N, h = j / N * 4 + k, w = i % W, ch = i / W;
        return (h < H && ch < C) ? ((n * H + h) * W + w) * C + ch : -1;
    }
    if (layout == L_WIDTH)
    {
        // [(W+3)/4 * C, N * H]: n = j/H, h = j%H, w = i%Wb*4 + k, c = i/Wb
        int N = a, H = b, W = c, C = d, Wb = DIV4(c);
        int n = j / H, h = j % H, w = i % Wb * 4 + k, ch = i / Wb;
        return (n < N && w < W && ch < C) ? ((n * H + h) * W + w) * C + ch : -1;
    }
    if (layout == L_CONV_FILTER)
    {
        // OIHW -> [I, (O+3)/4 * H * W]: o = n/HW*4 + k, i = m, h = T/W, w = T%W, T = n%HW
        int O = a, I = b, H = c, W = d, HW = c * d;
        int m = i, n = j, T = n % HW, o = n / HW * 4 + k;
        return (o < O && m < I) ? ((o * I + m) * H + T / W) * W + T % W : -1;
    }
    if (layout == L_DW_FILTER)
    {
        // MIHW (M = 1) -> [H * W, (I+3)/4]: i = n*4 + k, h = m/W, w = m%W
        int I = a, H = b, W = c;
        int m = i, n = j, ch = n * 4 + k;
        return (ch < I && m < H * W) ? (ch * H + m / W) * W + m % W : -1;
    }
    // 1-D argument [(W+3)/4, 1]: w = i*4 + k
    int w = i * 4 + k;
    return (j == 0 && w < a) ? w : -1;
}

__kernel void buffer_to_image(__global const float* src, __write_only image2d_t dst, int layout, int iw, int ih,
                              int a, int b, int c, int d)
{
    int i = get_global_id(0), j = get_global_id(1);
    if (i >= iw || j >= ih)
        return;
    float v[4];
    for (int k = 0; k < 4; k++)
    {
        int idx = layout_index(layout, i, j, k, a, b, c, d);
        v[k] = idx >= 0 ? src[idx] : 0.f;
    }
    WR(dst, i, j, (float4)(v[0], v[1], v[2], v[3]));
}

__kernel void image_to_buffer(__read_only image2d_t src, __global float* dst, int layout, int iw, int ih,
                              int a, int b, int c, int d)
{
    int i = get_global_id(0), j = get_global_id(1);
    if (i >= iw || j >= ih)
        return;
    float4 q = RD(src, i, j);
    float v[4] = {q.x, q.y, q.z, q.w};
    for (int k = 0; k < 4; k++)
    {
        int idx = layout_index(layout, i, j, k, a, b, c, d);
        if (idx >= 0)
            dst[idx] = v[k];
    }
}
