#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(Embed, lookup_clamp_bias)
{
    reseed(71);
    Mat table = RandomMat(8 * 10), bias = RandomMat(8);
    Mat words(6);
    const int idx[6] = {0, 3, 9, 12, -4, 5};
    for (int i = 0; i < 6; i++)
        ((int*)words.data)[i] = idx[i];
    for (int b : {0, 1})
    {
        ParamDict pd;
        pd.set(0, 8);
        pd.set(1, 10);
        pd.set(2, b);
        pd.set(3, 80);
        std::vector<Mat> w = {table};
        if (b)
            w.push_back(bias);
        std::string why;
        std::vector<Mat> out = run_reference("Embed", pd, w, {words}, &why);
        ASSERT_EQ(out.size(), 1u) << why;
        ASSERT_TRUE(same_shape(out[0], 2, 8, 6));
        for (int i = 0; i < 6; i++)
        {
            int r = idx[i] < 0 ? 0 : idx[i] > 9 ? 9 : idx[i];
            for (int p = 0; p < 8; p++)
                ASSERT_EQ(at(out[0], p, i), table[r * 8 + p] + (b ? bias[p] : 0.f));
        }
    }
    ParamDict bad;
    bad.set(0, 8);
    bad.set(1, 10);
    bad.set(3, 81);
    EXPECT_TRUE(reference_fails("Embed", bad, {RandomMat(81)}, {words}));
}
