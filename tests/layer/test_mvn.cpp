#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(MVN, mean_removed_and_variance)
{
    reseed(67);
    Mat in = RandomMat(7, 5, 4, -1.f, 2.f);
    for (int nv : {0, 1})
        for (int ac : {0, 1})
        {
            ParamDict pd;
            pd.set(0, nv);
            pd.set(1, ac);
            pd.set(2, 1e-6f);
            std::vector<Mat> out = run_all("MVN", pd, {}, {in});
            ASSERT_EQ(out.size(), 1u);
            double total = 0, total2 = 0;
            for (int q = 0; q < 4; q++)
            {
                double s = 0, s2 = 0;
                for (int i = 0; i < 35; i++)
                {
                    double v = ((const float*)out[0].channel(q).data)[i];
                    s += v, s2 += v * v;
                }
                total += s, total2 += s2;
                if (!ac)
                {
                    EXPECT_NEAR(s / 35, 0.0, 1e-5);
                    if (nv)
                        EXPECT_NEAR(s2 / 35, 1.0, 1e-3);
                }
            }
            EXPECT_NEAR(total / 140, 0.0, 1e-5);
            if (nv)
                EXPECT_NEAR(total2 / 140, 1.0, 1e-3);
        }
    EXPECT_TRUE(reference_fails("MVN", ParamDict(), {}, {RandomMat(4, 4)}));
}
