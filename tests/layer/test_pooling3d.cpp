#include "math_test_helpers.h"

#include <cfloat>

using namespace kite;
using namespace kite::test;

TEST(Pooling3D, naive_valid)
{
    reseed(21);
    for (int type : {0, 1})
        for (int pad : {0, 1})
        {
            Mat in = RandomMat(6, 5, 4, 3);
            ParamDict pd;
            pd.set(0, type);
            pd.set(1, 2);
            pd.set(2, 2);
            pd.set(3, pad);
            pd.set(5, 1);
            pd.set(6, 1);
            std::vector<Mat> out = run_all("Pooling3D", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            const Mat& o = out[0];
            auto osz = [&](int n) { return (n + 2 * pad - 2) / 2 + 1; };
            ASSERT_TRUE(same_shape(o, 4, osz(6), osz(5), osz(4), 3));
            for (int q = 0; q < 3; q++)
                for (int z = 0; z < o.d; z++)
                    for (int y = 0; y < o.h; y++)
                        for (int x = 0; x < o.w; x++)
                        {
                            float mx = -FLT_MAX, sum = 0.f;
                            for (int a = 0; a < 2; a++)
                                for (int b = 0; b < 2; b++)
                                    for (int c = 0; c < 2; c++)
                                    {
                                        int sz = z * 2 + a - pad, sy = y * 2 + b - pad, sx = x * 2 + c - pad;
                                        if (sz < 0 || sz >= 4 || sy < 0 || sy >= 5 || sx < 0 || sx >= 6)
                                            continue;
                                        float v = at(in, sx, sy, sz, q);
                                        mx = std::max(mx, v);
                                        sum += v;
                                    }
                            ASSERT_TRUE(near(at(o, x, y, z, q), type == 0 ? mx : sum / 8));
                        }
        }
}

TEST(Pooling3D, modes_global_adaptive)
{
    reseed(22);
    Mat in = RandomMat(7, 6, 5, 2);
    for (int mode : {0, 1, 2, 3})
        for (int type : {0, 1})
        {
            ParamDict pd;
            pd.set(0, type);
            pd.set(1, 3);
            pd.set(2, 2);
            pd.set(3, 1);
            pd.set(5, mode);
            EXPECT_EQ(run_all("Pooling3D", pd, {}, {in}).size(), 1u);
        }
    ParamDict g;
    g.set(0, 0);
    g.set(4, 1);
    std::vector<Mat> o = run_all("Pooling3D", g, {}, {in});
    ASSERT_EQ(o.size(), 1u);
    ASSERT_TRUE(same_shape(o[0], 1, 2));
    ParamDict a;
    a.set(0, 0);
    a.set(7, 1);
    a.set(8, 1);
    std::vector<Mat> oa = run_all("Pooling3D", a, {}, {in});
    ASSERT_EQ(oa.size(), 1u);
    EXPECT_EQ(at(oa[0], 0, 0, 0, 1), at(o[0], 1));
    EXPECT_TRUE(reference_fails("Pooling3D", g, {}, {RandomMat(4, 4, 4)}));
}
