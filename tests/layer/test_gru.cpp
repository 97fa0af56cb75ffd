#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

static float sig(float x)
{
    return 1.f / (1.f + std::exp(-x));
}

TEST(GRU, first_step_and_directions)
{
    reseed(76);
    const int I = 4, O = 3, T = 5;
    Mat x = RandomMat(I, T);
    Mat wx = RandomMat(3 * O * I), b = RandomMat(4 * O), wh = RandomMat(3 * O * O);
    ParamDict pd;
    pd.set(0, O);
    pd.set(1, 3 * O * I);
    std::vector<Mat> out = run_all("GRU", pd, {wx, b, wh}, {x});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 2, O, T));
    for (int q = 0; q < O; q++)
    {
        float g[3];
        for (int k = 0; k < 3; k++)
        {
            g[k] = 0.f;
            for (int i = 0; i < I; i++)
                g[k] += wx[(k * O + q) * I + i] * at(x, i, 0);
        }
        float R = sig(b[q] + g[0]), U = sig(b[O + q] + g[1]);
        float N = std::tanh(b[2 * O + q] + g[2] + R * b[3 * O + q]);
        EXPECT_TRUE(near(at(out[0], q, 0), (1.f - U) * N));
    }
    for (int d : {1, 2})
    {
        const int nd = d == 2 ? 2 : 1;
        ParamDict p;
        p.set(0, O);
        p.set(1, 3 * O * I * nd);
        p.set(2, d);
        std::vector<Mat> o = run_all("GRU", p, {RandomMat(3 * O * I * nd), RandomMat(4 * O * nd), RandomMat(3 * O * O * nd)},
                                     {x, RandomMat(O, nd)}, 2);
        ASSERT_EQ(o.size(), 2u);
        EXPECT_TRUE(same_shape(o[0], 2, O * nd, T));
        if (d == 1)
            EXPECT_EQ(at(o[0], 0, 0), at(o[1], 0, 0)); // the reverse direction ends at t = 0
        else
        {
            EXPECT_EQ(at(o[0], 0, T - 1), at(o[1], 0, 0));
            EXPECT_EQ(at(o[0], O, 0), at(o[1], 0, 1));
        }
    }
    EXPECT_TRUE(reference_fails("GRU", pd, {wx, b, wh}, {x, RandomMat(O + 1, 1)}, 2));
}
