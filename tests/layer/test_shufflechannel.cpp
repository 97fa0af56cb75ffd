#include "shape_testutil.h"

using namespace shapetest;

TEST(ShuffleChannel, groups_and_reverse)
{
    // 24 channels: packed by 8 on the GPU (shuffles inside and across groups)
    // 48 and 116: the 2-group interleave of whole units at elempack 16 and 4
    // (shufflenet_v2's 116/232/464), 5x3 pixels: vector steps plus tails
    for (Shape s : {Shape{12, 3, 5}, Shape{12, 2, 3, 3}, Shape{24, 2, 3}, Shape{48, 3, 5}, Shape{116, 3, 5}})
    {
        const int C = s[0];
        Mat in = seq(s);
        for (int g : {1, 2, 3, 4, 6, 12})
        {
            if (C % g != 0)
                continue;
            for (int rev = 0; rev < 2; rev++)
            {
                // forward: channels as a (g, C/g) matrix, transposed
                Mat out = run("ShuffleChannel", params({{0, g}, {1, rev}}), {in})[0];
                std::vector<int> src(C);
                for (int a = 0; a < g; a++)
                    for (int b = 0; b < C / g; b++)
                        src[b * g + a] = a * (C / g) + b; // out channel b*g+a <- in channel a*(C/g)+b
                if (rev)
                {
                    // reverse undoes the forward shuffle
                    std::vector<int> inv(C);
                    for (int i = 0; i < C; i++)
                        inv[src[i]] = i;
                    src = inv;
                }
                EXPECT_TRUE(matches(out, s, [&](const Shape& i) { return lget(in, with(i, 0, src[i[0]])); })) << "C " << C << " g " << g << " rev " << rev;
            }
        }
    }
    EXPECT_TRUE(fails("ShuffleChannel", params({{0, 5}}), {seq({12, 3, 5})}));
    EXPECT_TRUE(fails("ShuffleChannel", params({{0, 2}}), {seq({4, 5})}));
    EXPECT_TRUE(fails("ShuffleChannel", params({{0, 0}}), {seq({4, 3, 5})}));
}
