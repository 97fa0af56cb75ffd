#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

static float sig(float x)
{
    return 1.f / (1.f + std::exp(-x));
}

TEST(LSTM, first_step_projection_and_states)
{
    reseed(75);
    const int I = 4, O = 3, T = 4;
    for (int Hs : {3, 5})
    {
        Mat x = RandomMat(I, T);
        Mat wx = RandomMat(4 * Hs * I), b = RandomMat(4 * Hs), wh = RandomMat(4 * Hs * O), wr = RandomMat(Hs * O);
        std::vector<Mat> w = {wx, b, wh};
        if (Hs != O)
            w.push_back(wr);
        ParamDict pd;
        pd.set(0, O);
        pd.set(1, 4 * Hs * I);
        pd.set(3, Hs);
        std::vector<Mat> out = run_all("LSTM", pd, w, {x});
        ASSERT_EQ(out.size(), 1u);
        ASSERT_TRUE(same_shape(out[0], 2, O, T));
        // step 0 from zero state: c = I*G, H = O*tanh(c)
        std::vector<float> H(Hs);
        for (int q = 0; q < Hs; q++)
        {
            float g[4];
            for (int k = 0; k < 4; k++)
            {
                g[k] = b[k * Hs + q];
                for (int i = 0; i < I; i++)
                    g[k] += wx[(k * Hs + q) * I + i] * at(x, i, 0);
            }
            float c = sig(g[0]) * std::tanh(g[3]);
            H[q] = sig(g[2]) * std::tanh(c);
        }
        for (int o = 0; o < O; o++)
        {
            float want = H[o < Hs ? o : 0];
            if (Hs != O)
            {
                want = 0.f;
                for (int q = 0; q < Hs; q++)
                    want += wr[o * Hs + q] * H[q];
            }
            EXPECT_TRUE(near(at(out[0], o, 0), want));
        }
        // bidirectional with both states in and out
        ParamDict pb;
        pb.set(0, O);
        pb.set(1, 2 * 4 * Hs * I);
        pb.set(2, 2);
        pb.set(3, Hs);
        std::vector<Mat> wb = {RandomMat(2 * 4 * Hs * I), RandomMat(2 * 4 * Hs), RandomMat(2 * 4 * Hs * O)};
        if (Hs != O)
            wb.push_back(RandomMat(2 * Hs * O));
        std::vector<Mat> bi = run_all("LSTM", pb, wb, {x, RandomMat(O, 2), RandomMat(Hs, 2)}, 3);
        ASSERT_EQ(bi.size(), 3u);
        EXPECT_TRUE(same_shape(bi[0], 2, 2 * O, T));
        EXPECT_TRUE(same_shape(bi[2], 2, Hs, 2));
        EXPECT_EQ(at(bi[0], O + 1, 0), at(bi[1], 1, 1)); // reverse direction ends at t = 0
    }
    ParamDict bad;
    bad.set(0, 3);
    bad.set(1, 13);
    EXPECT_TRUE(reference_fails("LSTM", bad, {}, {RandomMat(4, 2)}));
}
