#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(LRN, across_and_within)
{
    reseed(68);
    Mat in = RandomMat(6, 5, 7, -2.f, 2.f);
    const float alpha = 0.5f, beta = 0.75f, bias = 1.5f;
    for (int rt : {0, 1})
        for (int ls : {3, 5})
        {
            ParamDict pd;
            pd.set(0, rt);
            pd.set(1, ls);
            pd.set(2, alpha);
            pd.set(3, beta);
            pd.set(4, bias);
            std::vector<Mat> out = run_all("LRN", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            // check position (x=2, y=3, c=3)
            double ss = 0;
            if (rt == 0)
            {
                for (int c = 3 - ls / 2; c <= 3 + ls / 2; c++)
                    if (c >= 0 && c < 7)
                        ss += at(in, 2, 3, 0, c) * at(in, 2, 3, 0, c);
                ss *= alpha / ls;
            }
            else
            {
                for (int y = 3 - ls / 2; y <= 3 + ls / 2; y++)
                    for (int x = 2 - ls / 2; x <= 2 + ls / 2; x++)
                        if (y >= 0 && y < 5 && x >= 0 && x < 6)
                            ss += at(in, x, y, 0, 3) * at(in, x, y, 0, 3);
                ss *= alpha / (ls * ls);
            }
            EXPECT_TRUE(near(at(out[0], 2, 3, 0, 3), at(in, 2, 3, 0, 3) * (float)std::pow(bias + ss, -beta)));
        }
    ParamDict bad;
    bad.set(0, 2);
    EXPECT_TRUE(reference_fails("LRN", bad, {}, {in}));
}

// every implementation (x86 rows: elempack 1/4/8/16, fp16 storage, 1/2 threads)
// against the reference, channel counts packable by 4/8/16 and not
TEST(LRN, implementations_match_reference)
{
    reseed(69);
    for (int c : {3, 12, 48})
    {
        Mat in = RandomMat(7, 5, c, -3.f, 3.f);
        for (int rt : {0, 1})
            for (int ls : {c == 3 ? 1 : 3, 4})
            {
                ParamDict pd;
                pd.set(0, rt);
                pd.set(1, ls);
                pd.set(2, 1e-1f);
                pd.set(3, rt ? 0.5f : 0.75f);
                pd.set(4, rt ? 2.f : 1.f);
                SCOPED_TRACE("c=" + std::to_string(c) + " region=" + std::to_string(rt) + " local_size=" + std::to_string(ls));
                KITE_EXPECT_LAYER_OK(test_layer("LRN", pd, {}, {in}));
            }
        // a non-positive bias takes the reference path
        ParamDict z;
        z.set(1, 3);
        z.set(4, -0.5f);
        z.set(2, -1.f);
        SCOPED_TRACE("bias -0.5 c=" + std::to_string(c));
        KITE_EXPECT_LAYER_OK(test_layer("LRN", z, {}, {in}));
    }
}
