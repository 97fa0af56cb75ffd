#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(StatisticsPooling, mean_and_stddev)
{
    reseed(66);
    Mat in = RandomMat(9, 4, 5);
    for (int sd : {0, 1})
    {
        ParamDict pd;
        pd.set(0, sd);
        std::vector<Mat> out = run_all("StatisticsPooling", pd, {}, {in});
        ASSERT_EQ(out.size(), 1u);
        ASSERT_TRUE(same_shape(out[0], 1, sd ? 10 : 5));
        for (int q = 0; q < 5; q++)
        {
            double s = 0, s2 = 0;
            for (int i = 0; i < 36; i++)
                s += ((const float*)in.channel(q).data)[i];
            double mean = s / 36;
            for (int i = 0; i < 36; i++)
            {
                double v = ((const float*)in.channel(q).data)[i] - mean;
                s2 += v * v;
            }
            EXPECT_TRUE(near(out[0][q], (float)mean));
            if (sd)
                EXPECT_TRUE(near(out[0][5 + q], (float)std::sqrt(s2 / 36)));
        }
    }
    EXPECT_TRUE(reference_fails("StatisticsPooling", ParamDict(), {}, {RandomMat(4, 4)}));
}
