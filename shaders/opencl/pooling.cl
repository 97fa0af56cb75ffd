// Pooling on channel-major images, ncnn's padding rules resolved on the host
// (pooling_plan_axis): lo = leading pad, [exlo, exhi) = window positions an
// average counts when pads are excluded.
__kernel void pool2d(__read_only image2d_t in, __write_only image2d_t out, int CB, int H, int W, int OH, int OW,
                     int kw, int kh, int sw, int sh, int lox, int loy, int exlox, int exhix, int exloy, int exhiy,
                     int is_max, int exclude_pad)
{
    int x = get_global_id(0), oy = get_global_id(1);
    if (x >= OW * CB || oy >= OH)
        return;
    int cb = x / OW, ox = x % OW;
    FLOAT4 m = (FLOAT4)(FLOAT_LOWEST);
    float4 sum = (float4)(0.f);
    int area = 0;
    for (int ky = 0; ky < kh; ky++)
    {
        int py = oy * sh + ky;
        int iy = py - loy;
        for (int kx = 0; kx < kw; kx++)
        {
            int px = ox * sw + kx;
            int ix = px - lox;
            bool in_range = iy >= 0 && iy < H && ix >= 0 && ix < W;
            FLOAT4 v = in_range ? RDH(in, cb * W + ix, iy) : (FLOAT4)(0);
            if (is_max)
                m = fmax(m, in_range ? v : (FLOAT4)(FLOAT_LOWEST));
            else if (!exclude_pad || (px >= exlox && px < exhix && py >= exloy && py < exhiy))
            {
                sum += TO_FLOAT4(v);
                area++;
            }
        }
    }
    float4 r = is_max ? TO_FLOAT4(m) : sum / (float)(exclude_pad ? area : kw * kh);
    WR(out, x, oy, r);
}

// global pooling -> 1-D [(C+3)/4, 1]: one work group of 64 items per block
// of 4 channels (launched with that local size), each item covering the
// positions lane, lane + 64, ..., then a reduction in local memory
__kernel void global_pool(__read_only image2d_t in, __write_only image2d_t out, int CB, int H, int W, int is_max)
{
    __local float4 part[64];
    int cb = get_group_id(0);
    int lane = get_local_id(0);
    float4 v = is_max ? (float4)(-FLT_MAX) : (float4)(0.f);
    for (int pos = lane; pos < H * W; pos += 64)
    {
        float4 t = RD(in, cb * W + pos % W, pos / W);
        v = is_max ? fmax(v, t) : v + t;
    }
    v = is_max ? group_max64(part, lane, v) : group_sum64(part, lane, v);
    if (lane == 0 && cb < CB)
        WR(out, cb, 0, is_max ? v : v / (float)(H * W));
}
