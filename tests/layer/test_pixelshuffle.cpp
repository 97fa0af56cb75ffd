#include "shape_testutil.h"

using namespace shapetest;

TEST(PixelShuffle, crd_and_dcr)
{
    for (int r : {1, 2, 3})
    {
        const int outc = 2;
        Mat in = seq({outc * r * r, 3, 5});
        for (int mode = 0; mode < 2; mode++)
        {
            EXPECT_TRUE(matches(run("PixelShuffle", params({{0, r}, {1, mode}}), {in})[0], {outc, 3 * r, 5 * r}, [&](const Shape& i) {
                const int p = i[0], y = i[1], x = i[2];
                const int sub = (y % r) * r + x % r;
                const int q = mode == 0 ? p * r * r + sub : sub * outc + p;
                return lget(in, {q, y / r, x / r});
            })) << "r " << r << " mode " << mode;
        }
    }
    EXPECT_TRUE(fails("PixelShuffle", params({{0, 2}}), {seq({6, 3, 5})}));
    EXPECT_TRUE(fails("PixelShuffle", params({{0, 2}}), {seq({8, 5})}));
    EXPECT_TRUE(fails("PixelShuffle", params({{0, 0}}), {seq({8, 3, 5})}));
}

TEST(Reorg, both_modes_and_inverse_of_pixelshuffle)
{
    for (int s : {1, 2, 3})
    {
        const int c = 3;
        Mat in = seq({c, 2 * s + (s > 1), 4 * s + (s > 1)}); // trailing rows/cols dropped
        const int outh = 2, outw = 4;
        for (int mode = 0; mode < 2; mode++)
        {
            EXPECT_TRUE(matches(run("Reorg", params({{0, s}, {1, mode}}), {in})[0], {c * s * s, outh, outw}, [&](const Shape& i) {
                const int o = i[0];
                const int q = mode == 0 ? o / (s * s) : o % c;
                const int sub = mode == 0 ? o % (s * s) : o / c;
                return lget(in, {q, i[1] * s + sub / s, i[2] * s + sub % s});
            })) << "s " << s << " mode " << mode;
        }
    }
    // Reorg mode 0 then PixelShuffle mode 0 is the identity (and 1 with 1)
    Mat in = seq({2, 4, 6});
    for (int mode = 0; mode < 2; mode++)
    {
        Mat r = run("Reorg", params({{0, 2}, {1, mode}}), {in})[0];
        EXPECT_TRUE(matches(run("PixelShuffle", params({{0, 2}, {1, mode}}), {r})[0], {2, 4, 6}, [&](const Shape& i) { return lget(in, i); }));
    }
    EXPECT_TRUE(fails("Reorg", params({{0, 4}}), {seq({2, 3, 8})}));
    EXPECT_TRUE(fails("Reorg", params({{0, 2}}), {seq({4, 8})}));
}
