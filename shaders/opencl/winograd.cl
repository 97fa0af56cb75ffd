// 3x3 stride-1 convolution by Winograd F(2x2, 3x3) on the seeds' Winograd
// images. With T output tiles of 2x2 (TW per row), 16 transform points
// (alpha) and CB = (C+3)/4:
//   V = B^T d B   input tiles, height-major NHWC (N=16, H=C, W=T, C=1):
//                 [T, 16 * CB], pixel (t, cb*16 + alpha) = 4 input channels
//   U = G g G^T   filters (host), width-major NHWC (N=16, H=O, W=C, C=1):
//                 [CB, 16 * O], pixel (cb, alpha*O + o) = 4 input channels
//   M = U V       per alpha, height-major NHWC (N=16, H=O, W=T, C=1):
//                 [T, 16 * OB], pixel (t, ob*16 + alpha) = 4 output channels
//   Y = A^T M A   2x2 outputs per tile, + bias, activation, channel-major

__kernel void winograd_input(__read_only image2d_t in, __write_only image2d_t v, int C, int H, int W, int TW, int T,
                             int pl, int pt, float pad_value)
{
    int t = get_global_id(0), cb = get_global_id(1);
    if (t >= T || cb >= DIV4(C))
        return;
    int y0 = (t / TW) * 2 - pt, x0 = (t % TW) * 2 - pl;
    FLOAT4 d[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
        {
            int y = y0 + i, x = x0 + j;
            d[i][j] = (y >= 0 && y < H && x >= 0 && x < W) ? RDH(in, cb * W + x, y) : (FLOAT4)((FLOAT)pad_value);
        }
    // rows: B^T d
    FLOAT4 r[4][4];
    for (int j = 0; j < 4; j++)
    {
        r[0][j] = d[0][j] - d[2][j];
        r[1][j] = d[1][j] + d[2][j];
        r[2][j] = d[2][j] - d[1][j];
        r[3][j] = d[1][j] - d[3][j];
    }
    // columns: (B^T d) B
    for (int i = 0; i < 4; i++)
    {
        int y = cb * 16 + i * 4;
        WRH(v, t, y + 0, r[i][0] - r[i][2]);
        WRH(v, t, y + 1, r[i][1] + r[i][2]);
        WRH(v, t, y + 2, r[i][2] - r[i][1]);
        WRH(v, t, y + 3, r[i][1] - r[i][3]);
    }
}

// one work item: 4 output channels of one tile at one alpha
__kernel void winograd_gemm(__read_only image2d_t u, __read_only image2d_t v, __write_only image2d_t m, int C, int O,
                            int T)
{
    int t = get_global_id(0), y = get_global_id(1);
    int OB = DIV4(O);
    if (t >= T || y >= OB * 16)
        return;
    int ob = y / 16, alpha = y % 16;
    int o = ob * 4;
    int row = alpha * O + o;
    float4 sum = (float4)(0.f);
    for (int cb = 0; cb < DIV4(C); cb++)
    {
        FLOAT4 x = RDH(v, t, cb * 16 + alpha);
        // rows past O belong to the next alpha: not read
        sum.x += (float)dot(RDH(u, cb, row), x);
        sum.y += o + 1 < O ? (float)dot(RDH(u, cb, row + 1), x) : 0.f;
        sum.z += o + 2 < O ? (float)dot(RDH(u, cb, row + 2), x) : 0.f;
        sum.w += o + 3 < O ? (float)dot(RDH(u, cb, row + 3), x) : 0.f;
    }
    WR(m, t, ob * 16 + alpha, sum);
}

// winograd_gemm blocked: one work item makes 8 output channels (two quads,
// rows o .. o + 7 of U) of 4 consecutive tiles at one alpha, so each V
// texel read serves 8 outputs and each U texel 4 tiles (12 reads per 128
// products instead of 5 per 16). Rows past O are read clamped to O - 1 and
// their sums zeroed; tiles past T read the image border and are not written.
__kernel void winograd_gemm48(__read_only image2d_t u, __read_only image2d_t v, __write_only image2d_t m, int C,
                              int O, int T)
{
    int t0 = get_global_id(0) * 4, y = get_global_id(1);
    int OB = DIV4(O), O8 = (O + 7) / 8;
    if (t0 >= T || y >= O8 * 16)
        return;
    int ob8 = y / 16, alpha = y % 16;
    int o = ob8 * 8;
    int rows[8];
    for (int r = 0; r < 8; r++)
        rows[r] = alpha * O + min(o + r, O - 1);
    float4 s0[2], s1[2], s2[2], s3[2];
    for (int h = 0; h < 2; h++)
        s0[h] = s1[h] = s2[h] = s3[h] = (float4)(0.f);
    for (int cb = 0; cb < DIV4(C); cb++)
    {
        int vy = cb * 16 + alpha;
        FLOAT4 x0 = RDH(v, t0, vy), x1 = RDH(v, t0 + 1, vy), x2 = RDH(v, t0 + 2, vy), x3 = RDH(v, t0 + 3, vy);
        for (int h = 0; h < 2; h++)
        {
            FLOAT4 ua = RDH(u, cb, rows[h * 4]), ub = RDH(u, cb, rows[h * 4 + 1]);
            FLOAT4 uc = RDH(u, cb, rows[h * 4 + 2]), ud = RDH(u, cb, rows[h * 4 + 3]);
            s0[h] += (float4)((float)dot(ua, x0), (float)dot(ub, x0), (float)dot(uc, x0), (float)dot(ud, x0));
            s1[h] += (float4)((float)dot(ua, x1), (float)dot(ub, x1), (float)dot(uc, x1), (float)dot(ud, x1));
            s2[h] += (float4)((float)dot(ua, x2), (float)dot(ub, x2), (float)dot(uc, x2), (float)dot(ud, x2));
            s3[h] += (float4)((float)dot(ua, x3), (float)dot(ub, x3), (float)dot(uc, x3), (float)dot(ud, x3));
        }
    }
    for (int h = 0; h < 2; h++)
    {
        int ob = ob8 * 2 + h;
        if (ob >= OB)
            break;
        int4 valid = (int4)(ob * 4) + (int4)(0, 1, 2, 3) < (int4)(O);
        int my = ob * 16 + alpha;
        WR(m, t0, my, select((float4)(0.f), s0[h], valid));
        if (t0 + 1 < T)
            WR(m, t0 + 1, my, select((float4)(0.f), s1[h], valid));
        if (t0 + 2 < T)
            WR(m, t0 + 2, my, select((float4)(0.f), s2[h], valid));
        if (t0 + 3 < T)
            WR(m, t0 + 3, my, select((float4)(0.f), s3[h], valid));
    }
}

// winograd_gemm through local-memory tiles (the design of Vulkan's gemm.comp
// that its Winograd path runs): per alpha (get_global_id(2)), M = U V with
// M rows the O outputs, columns the T tiles, K the C input channels in
// quads. A work group of TX x TY items (its local size, 16 x 16 or 8 x 8)
// makes 4 TY outputs x 4 TX tiles; item (tx, ty) holds output quad ty of
// the tile at tiles tx + TX j, j < 4. K advances WKS = 4 input quads a
// step: the V texels of the step's tiles and the U texels of its outputs are
// staged in local memory once for the whole group. Rows past O (the next
// alpha's), tiles past T and quads past C stage zeros. Float arithmetic.
#define WKS 4
#define WMAXT 64
#define WMAXO 64

__kernel void winograd_gemm_tiled(__read_only image2d_t u, __read_only image2d_t v, __write_only image2d_t m, int C,
                                  int O, int T)
{
    __local float4 Vs[WKS][WMAXT];
    __local float4 Us[WKS][WMAXO + 1];
    const int TX = get_local_size(0), TY = get_local_size(1);
    const int NT = TX * TY, NPT = 4 * TX, NO = 4 * TY;
    int tx = get_local_id(0), ty = get_local_id(1);
    int lid = ty * TX + tx;
    int alpha = get_global_id(2);
    int CB = DIV4(C), OB = DIV4(O);
    int t0 = (get_global_id(0) / TX) * NPT;
    int o0 = (get_global_id(1) / TY) * NO;
    float4 acc[4];
    for (int j = 0; j < 4; j++)
        acc[j] = (float4)(0.f);
    for (int k0 = 0; k0 < CB; k0 += WKS)
    {
        for (int e = lid; e < WKS * NPT; e += NT)
        {
            int kq = e / NPT, tl = e - kq * NPT;
            int t = t0 + tl, cb = k0 + kq;
            Vs[kq][tl] = (t < T && cb < CB) ? RD(v, t, cb * 16 + alpha) : (float4)(0.f);
        }
        for (int e = lid; e < WKS * NO; e += NT)
        {
            int kq = e / NO, ol = e - kq * NO;
            int o = o0 + ol, cb = k0 + kq;
            Us[kq][ol] = (o < O && cb < CB) ? RD(u, cb, alpha * O + o) : (float4)(0.f);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = 0; s < WKS; s++)
        {
            float4 w0 = Us[s][ty * 4], w1 = Us[s][ty * 4 + 1], w2 = Us[s][ty * 4 + 2], w3 = Us[s][ty * 4 + 3];
            for (int j = 0; j < 4; j++)
            {
                float4 x = Vs[s][tx + TX * j];
                acc[j] += (float4)(dot(w0, x), dot(w1, x), dot(w2, x), dot(w3, x));
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int ob = o0 / 4 + ty;
    if (ob >= OB)
        return;
    for (int j = 0; j < 4; j++)
    {
        int t = t0 + tx + TX * j;
        if (t < T)
            WR(m, t, ob * 16 + alpha, acc[j]);
    }
}

__kernel void winograd_output(__read_only image2d_t m, __read_only image2d_t bias, __write_only image2d_t out, int O,
                              int OH, int OW, int TW, int T, int has_bias, int act, float p0, float p1)
{
    int t = get_global_id(0), ob = get_global_id(1);
    if (t >= T || ob >= DIV4(O))
        return;
    float4 a[4][4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            a[i][j] = RD(m, t, ob * 16 + i * 4 + j);
    // A^T a A with A^T = [1 1 1 0; 0 1 -1 -1]
    float4 r[2][4];
    for (int j = 0; j < 4; j++)
    {
        r[0][j] = a[0][j] + a[1][j] + a[2][j];
        r[1][j] = a[1][j] - a[2][j] - a[3][j];
    }
    float4 b = has_bias ? RD(bias, ob, 0) : (float4)(0.f);
    int oy0 = (t / TW) * 2, ox0 = (t % TW) * 2;
    for (int i = 0; i < 2; i++)
    {
        int oy = oy0 + i;
        if (oy >= OH)
            break;
        float4 y0 = r[i][0] + r[i][1] + r[i][2] + b;
        float4 y1 = r[i][1] - r[i][2] - r[i][3] + b;
        WR(out, ob * OW + ox0, oy, activate(y0, act, p0, p1));
        if (ox0 + 1 < OW)
            WR(out, ob * OW + ox0 + 1, oy, activate(y1, act, p0, p1));
    }
}
