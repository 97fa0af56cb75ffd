#include "shape_testutil.h"

using namespace shapetest;

TEST(ShuffleChannel, groups_and_reverse)
{
    for (Shape s : {Shape{12, 3, 5}, Shape{12, 2, 3, 3}})
    {
        Mat in = seq(s);
        for (int g : {1, 2, 3, 4, 6, 12})
        {
            for (int rev = 0; rev < 2; rev++)
            {
                // forward: channels as a (g, 12/g) matrix, transposed
                Mat out = run("ShuffleChannel", params({{0, g}, {1, rev}}), {in})[0];
                std::vector<int> src(12);
                for (int a = 0; a < g; a++)
                    for (int b = 0; b < 12 / g; b++)
                        src[b * g + a] = a * (12 / g) + b; // out channel b*g+a <- in channel a*(12/g)+b
                if (rev)
                {
                    // reverse undoes the forward shuffle
                    std::vector<int> inv(12);
                    for (int i = 0; i < 12; i++)
                        inv[src[i]] = i;
                    src = inv;
                }
                EXPECT_TRUE(matches(out, s, [&](const Shape& i) { return lget(in, with(i, 0, src[i[0]])); })) << "g " << g << " rev " << rev;
            }
        }
    }
    EXPECT_TRUE(fails("ShuffleChannel", params({{0, 5}}), {seq({12, 3, 5})}));
    EXPECT_TRUE(fails("ShuffleChannel", params({{0, 2}}), {seq({4, 5})}));
    EXPECT_TRUE(fails("ShuffleChannel", params({{0, 0}}), {seq({4, 3, 5})}));
}
