#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

// reverse the rows of a (w, T) blob
static Mat reversed(const Mat& m)
{
    Mat r(m.w, m.h);
    for (int t = 0; t < m.h; t++)
        for (int i = 0; i < m.w; i++)
            set_at(r, at(m, i, t), i, m.h - 1 - t);
    return r;
}

TEST(RNN, first_step_and_directions)
{
    reseed(74);
    const int I = 4, O = 3, T = 5;
    Mat x = RandomMat(I, T);
    Mat wx = RandomMat(O * I), b = RandomMat(O), wh = RandomMat(O * O);
    ParamDict pd;
    pd.set(0, O);
    pd.set(1, O * I);
    std::vector<Mat> f = run_all("RNN", pd, {wx, b, wh}, {x});
    ASSERT_EQ(f.size(), 1u);
    ASSERT_TRUE(same_shape(f[0], 2, O, T));
    for (int q = 0; q < O; q++)
    {
        float s = b[q];
        for (int i = 0; i < I; i++)
            s += wx[q * I + i] * at(x, i, 0);
        EXPECT_TRUE(near(at(f[0], q, 0), std::tanh(s)));
    }
    // reverse direction == forward over the reversed sequence, reversed back
    pd.set(2, 1);
    std::vector<Mat> r = run_all("RNN", pd, {wx, b, wh}, {x});
    pd.set(2, 0);
    std::vector<Mat> fr = run_all("RNN", pd, {wx, b, wh}, {reversed(x)});
    ASSERT_EQ(r.size(), 1u);
    ASSERT_EQ(fr.size(), 1u);
    EXPECT_EQ(compare_mat(r[0], reversed(fr[0]), 1e-6f), "");
    // bidirectional with states in and out
    ParamDict pb;
    pb.set(0, O);
    pb.set(1, 2 * O * I);
    pb.set(2, 2);
    std::vector<Mat> bi = run_all("RNN", pb, {RandomMat(2 * O * I), RandomMat(2 * O), RandomMat(2 * O * O)}, {x, RandomMat(O, 2)}, 2);
    ASSERT_EQ(bi.size(), 2u);
    EXPECT_TRUE(same_shape(bi[0], 2, 2 * O, T));
    EXPECT_TRUE(same_shape(bi[1], 2, O, 2));
    // last forward output equals the forward final state
    EXPECT_EQ(at(bi[0], 1, T - 1), at(bi[1], 1, 0));
    EXPECT_TRUE(reference_fails("RNN", pd, {wx, b, wh}, {RandomMat(I + 1, T)}));
}
