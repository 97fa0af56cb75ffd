#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(GroupNorm, groups_normalised)
{
    reseed(52);
    for (int dims : {1, 2, 3, 4})
        for (int group : {1, 2, 3, 6})
        {
            Mat in = dims == 1 ? RandomMat(6) : dims == 2 ? RandomMat(5, 6) : dims == 3 ? RandomMat(4, 3, 6) : RandomMat(3, 2, 2, 6);
            ParamDict pd;
            pd.set(0, group);
            pd.set(1, 6);
            pd.set(2, 1e-5f);
            pd.set(3, 0);
            std::vector<Mat> out = run_all("GroupNorm", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            // per group: mean 0
            const Mat& o = out[0];
            int cpg = 6 / group;
            for (int g = 0; g < group; g++)
            {
                double s = 0;
                int n = 0;
                for (int c = g * cpg; c < (g + 1) * cpg; c++)
                {
                    if (dims == 1)
                        s += o[c], n++;
                    else if (dims == 2)
                        for (int x = 0; x < o.w; x++)
                            s += at(o, x, c), n++;
                    else
                        for (int z = 0; z < o.d; z++)
                            for (int y = 0; y < o.h; y++)
                                for (int x = 0; x < o.w; x++)
                                    s += at(o, x, y, z, c), n++;
                }
                if (n > 1)
                    EXPECT_NEAR(s / n, 0.0, 1e-4);
            }
            // affine variant runs through all implementations too
            pd.set(3, 1);
            EXPECT_EQ(run_all("GroupNorm", pd, {RandomMat(6), RandomMat(6)}, {in}).size(), 1u);
        }
}

TEST(GroupNorm, errors)
{
    ParamDict pd;
    pd.set(0, 4);
    pd.set(1, 6);
    EXPECT_TRUE(reference_fails("GroupNorm", pd, {RandomMat(6), RandomMat(6)}, {RandomMat(3, 3, 6)}));
    ParamDict pc;
    pc.set(0, 2);
    pc.set(1, 6);
    EXPECT_TRUE(reference_fails("GroupNorm", pc, {RandomMat(6), RandomMat(6)}, {RandomMat(3, 3, 4)}));
}
