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
