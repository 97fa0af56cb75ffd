#include "math_test_helpers.h"

#include <cfloat>

using namespace kite;
using namespace kite::test;

TEST(Pooling1D, naive_valid_and_modes)
{
    reseed(11);
    for (int type : {0, 1})
        for (int incl : {0, 1})
            for (int pad : {0, 1})
            {
                Mat in = RandomMat(12, 3);
                ParamDict pd;
                pd.set(0, type);
                pd.set(1, 3);
                pd.set(2, 2);
                pd.set(3, pad);
                pd.set(5, 1);
                pd.set(6, incl);
                std::vector<Mat> out = run_all("Pooling1D", pd, {}, {in});
                ASSERT_EQ(out.size(), 1u);
                const int ow = (12 + 2 * pad - 3) / 2 + 1;
                ASSERT_TRUE(same_shape(out[0], 2, ow, 3));
                for (int q = 0; q < 3; q++)
                    for (int x = 0; x < ow; x++)
                    {
                        float mx = -FLT_MAX, sum = 0.f;
                        int n = 0;
                        for (int k = 0; k < 3; k++)
                        {
                            int sx = x * 2 + k - pad;
                            if (sx < 0 || sx >= 12)
                                continue;
                            mx = std::max(mx, at(in, sx, q));
                            sum += at(in, sx, q);
                            n++;
                        }
                        float want = type == 0 ? mx : (incl ? sum / 3 : sum / n);
                        ASSERT_TRUE(near(at(out[0], x, q), want));
                    }
            }
    for (int mode : {0, 2, 3})
    {
        ParamDict pd;
        pd.set(1, 2);
        pd.set(2, 2);
        pd.set(5, mode);
        std::vector<Mat> out = run_all("Pooling1D", pd, {}, {RandomMat(9, 4)});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].w, 5); // ceil(9 / 2)
    }
}

TEST(Pooling1D, global_adaptive_and_errors)
{
    reseed(12);
    Mat in = RandomMat(10, 4);
    ParamDict pd;
    pd.set(0, 1);
    pd.set(4, 1);
    std::vector<Mat> g = run_all("Pooling1D", pd, {}, {in});
    ASSERT_EQ(g.size(), 1u);
    ASSERT_TRUE(same_shape(g[0], 1, 4));
    float sum = 0.f;
    for (int x = 0; x < 10; x++)
        sum += at(in, x, 2);
    EXPECT_TRUE(near(at(g[0], 2), sum / 10));

    ParamDict pa;
    pa.set(0, 0);
    pa.set(7, 1);
    pa.set(8, 4);
    std::vector<Mat> a = run_all("Pooling1D", pa, {}, {in});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_TRUE(same_shape(a[0], 2, 4, 4));
    // bin 1 of 4 over 10: [2, 5)
    EXPECT_EQ(at(a[0], 1, 3), std::max(at(in, 2, 3), std::max(at(in, 3, 3), at(in, 4, 3))));

    ParamDict bad;
    bad.set(1, 3);
    bad.set(2, 0);
    EXPECT_TRUE(reference_fails("Pooling1D", bad, {}, {in}));
    ParamDict ok;
    ok.set(1, 3);
    EXPECT_TRUE(reference_fails("Pooling1D", ok, {}, {RandomMat(4, 4, 4)}));
}
