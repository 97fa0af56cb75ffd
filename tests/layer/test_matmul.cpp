#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(MatMul, batched_broadcast_against_naive)
{
    reseed(41);
    const int M = 3, K = 4, N = 5;
    // A (K, M, 1 or 2, 2), B (N, K, 2, 1 or 2): 4-D batches with broadcasting
    for (int tb : {0, 1})
        for (int ad : {1, 2})
            for (int bc : {1, 2})
            {
                Mat A = RandomMat(K, M, ad, 2);
                Mat B = tb ? RandomMat(K, N, 2, bc) : RandomMat(N, K, 2, bc);
                ParamDict pd;
                pd.set(0, tb);
                std::vector<Mat> out = run_all("MatMul", pd, {}, {A, B});
                ASSERT_EQ(out.size(), 1u);
                ASSERT_TRUE(same_shape(out[0], 4, N, M, 2, 2));
                for (int c = 0; c < 2; c++)
                    for (int d = 0; d < 2; d++)
                        for (int i = 0; i < M; i++)
                            for (int j = 0; j < N; j++)
                            {
                                float s = 0.f;
                                for (int k = 0; k < K; k++)
                                {
                                    float b = tb ? at(B, k, j, d, c % bc) : at(B, j, k, d, c % bc);
                                    s += at(A, k, i, d % ad, c) * b;
                                }
                                ASSERT_TRUE(near(at(out[0], j, i, d, c), s));
                            }
            }
}

TEST(MatMul, vectors_and_ranks)
{
    reseed(42);
    // vector . vector
    Mat a = RandomMat(6), b = RandomMat(6);
    std::vector<Mat> out = run_all("MatMul", ParamDict(), {}, {a, b});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 1, 1));
    float s = 0.f;
    for (int i = 0; i < 6; i++)
        s += a[i] * b[i];
    EXPECT_TRUE(near(out[0][0], s));
    // vector x 3-D -> (N, batch)
    Mat B3 = RandomMat(5, 6, 3);
    out = run_all("MatMul", ParamDict(), {}, {a, B3});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 2, 5, 3));
    float s2 = 0.f;
    for (int k = 0; k < 6; k++)
        s2 += a[k] * at(B3, 4, k, 0, 2);
    EXPECT_TRUE(near(at(out[0], 4, 2), s2));
    // 3-D x vector -> (M, batch)
    Mat A3 = RandomMat(6, 4, 2);
    out = run_all("MatMul", ParamDict(), {}, {A3, b});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 2, 4, 2));
    // 2-D x 3-D broadcasts A; 3-D x 4-D aligns c of A with d of B
    EXPECT_EQ(run_all("MatMul", ParamDict(), {}, {RandomMat(6, 4), RandomMat(5, 6, 3)}).size(), 1u);
    out = run_all("MatMul", ParamDict(), {}, {RandomMat(6, 4, 2), RandomMat(5, 6, 2, 3)});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(same_shape(out[0], 4, 5, 4, 2, 3));
}

TEST(MatMul, errors)
{
    reseed(43);
    EXPECT_TRUE(reference_fails("MatMul", ParamDict(), {}, {RandomMat(6, 4), RandomMat(5, 5)}));
    EXPECT_TRUE(reference_fails("MatMul", ParamDict(), {}, {RandomMat(6, 4, 2), RandomMat(5, 6, 3)}));
}

// sizes past the x86 SGEMM's register and K blocks (partial panels, two K
// blocks), batches fewer and more than the threads, B broadcast over them
TEST(MatMul, sgemm_sized)
{
    reseed(43);
    const int M = 30, K = 300, N = 37;
    for (int tb : {0, 1})
    {
        const int batches = tb ? 3 : 1;
        Mat A = RandomMat(K, M, batches);
        Mat B = tb ? RandomMat(K, N) : RandomMat(N, K);
        ParamDict pd;
        pd.set(0, tb);
        std::vector<Mat> out = run_all("MatMul", pd, {}, {A, B});
        ASSERT_EQ(out.size(), 1u);
        ASSERT_TRUE(same_shape(out[0], 3, N, M, 1, batches));
        for (int c = 0; c < batches; c++)
            for (int i = 0; i < M; i += 7)
                for (int j = 0; j < N; j++)
                {
                    float s = 0.f;
                    for (int k = 0; k < K; k++)
                        s += at(A, k, i, 0, c) * (tb ? at(B, k, j) : at(B, j, k));
                    ASSERT_TRUE(near(at(out[0], j, i, 0, c), s, 1e-3f)) << "tb " << tb << " c " << c << " i " << i << " j " << j;
                }
    }
}
