#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

// A as M x K (row major), B as K x N, C as M x N (already broadcast)
static std::vector<float> naive(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>* C,
                                int M, int N, int K, float alpha, float beta)
{
    std::vector<float> out(M * N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
        {
            float s = C ? beta * (*C)[i * N + j] : 0.f;
            for (int k = 0; k < K; k++)
                s += A[i * K + k] * B[k * N + j];
            out[i * N + j] = alpha * s;
        }
    return out;
}

// a (cols x rows) Mat holding `rows x cols` row major, optionally transposed
static Mat matrix(const std::vector<float>& v, int rows, int cols, bool trans)
{
    Mat m = trans ? Mat(rows, cols) : Mat(cols, rows);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
        {
            if (trans)
                ((float*)m.data)[j * rows + i] = v[i * cols + j];
            else
                ((float*)m.data)[i * cols + j] = v[i * cols + j];
        }
    return m;
}

static std::vector<float> randv(int n)
{
    std::vector<float> v(n);
    for (float& x : v)
        x = rand_float();
    return v;
}

TEST(Gemm, trans_constants_and_broadcast)
{
    reseed(31);
    const int M = 5, N = 7, K = 6;
    for (int ta : {0, 1})
        for (int tb : {0, 1})
            for (int ca : {0, 1})
                for (int cb : {0, 1})
                    for (int ctype : {-1, 0, 1, 3, 4, 10, 13})
                    {
                        if (ca && cb && ctype < 10)
                            continue; // no input blob at all
                        std::vector<float> A = randv(M * K), B = randv(K * N);
                        std::vector<float> Cfull(M * N);
                        Mat Cm;
                        const int bt = ctype % 10;
                        std::vector<float> cv = randv(bt == 0 ? 1 : bt == 3 ? M * N : bt == 4 ? N : M);
                        for (int i = 0; i < M; i++)
                            for (int j = 0; j < N; j++)
                                Cfull[i * N + j] = bt == 0 ? cv[0] : bt == 3 ? cv[i * N + j] : bt == 4 ? cv[j] : cv[i];
                        const float alpha = 0.5f, beta = 2.f;
                        ParamDict pd;
                        pd.set(0, alpha);
                        pd.set(1, beta);
                        pd.set(2, ta);
                        pd.set(3, tb);
                        pd.set(4, ca);
                        pd.set(5, cb);
                        pd.set(7, M);
                        pd.set(8, N);
                        pd.set(9, K);
                        std::vector<Mat> inputs, weights;
                        Mat Am = matrix(A, M, K, ta), Bm = matrix(B, K, N, tb);
                        if (ca)
                            weights.push_back(Am);
                        else
                            inputs.push_back(Am);
                        if (cb)
                            weights.push_back(Bm);
                        else
                            inputs.push_back(Bm);
                        if (ctype >= 0)
                        {
                            Mat c = bt == 3 ? Mat(N, M) : Mat((int)cv.size());
                            for (size_t i = 0; i < cv.size(); i++)
                                c[i] = cv[i];
                            if (ctype >= 10)
                                inputs.push_back(c);
                            else
                            {
                                pd.set(6, 1);
                                pd.set(10, bt);
                                weights.push_back(c);
                            }
                        }
                        std::vector<Mat> out = run_all("Gemm", pd, weights, inputs);
                        ASSERT_EQ(out.size(), 1u);
                        ASSERT_TRUE(same_shape(out[0], 2, N, M));
                        std::vector<float> want = naive(A, B, ctype >= 0 ? &Cfull : nullptr, M, N, K, alpha, beta);
                        for (int i = 0; i < M * N; i++)
                            ASSERT_TRUE(near(out[0][i], want[i])) << "ta " << ta << " tb " << tb << " ca " << ca << " cb " << cb << " c " << ctype;
                    }
}

TEST(Gemm, output_layouts)
{
    reseed(32);
    const int M = 4, N = 3, K = 5;
    std::vector<float> A = randv(M * K), B = randv(K * N);
    std::vector<float> want = naive(A, B, nullptr, M, N, K, 1.f, 1.f);
    ParamDict pd;
    pd.set(14, 1);
    std::vector<Mat> out = run_all("Gemm", pd, {}, {matrix(A, M, K, false), matrix(B, K, N, false)});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 2, M, N));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            EXPECT_TRUE(near(at(out[0], i, j), want[i * N + j]));
    ParamDict pn;
    pn.set(11, 1);
    out = run_all("Gemm", pn, {}, {matrix(A, M, K, false), matrix(B, K, N, false)});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_TRUE(same_shape(out[0], 3, N, 1, 1, M));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            EXPECT_TRUE(near(at(out[0], j, 0, 0, i), want[i * N + j]));
}

TEST(Gemm, errors)
{
    reseed(33);
    ParamDict pd;
    EXPECT_TRUE(reference_fails("Gemm", pd, {}, {RandomMat(5, 4), RandomMat(3, 6)})); // K mismatch
    ParamDict pa;
    pa.set(4, 1); // constant A without M/K
    EXPECT_TRUE(reference_fails("Gemm", pa, {RandomMat(4)}, {RandomMat(3, 6)}));
    ParamDict pc;
    EXPECT_TRUE(reference_fails("Gemm", pc, {}, {RandomMat(5, 4), RandomMat(3, 5), RandomMat(7, 7)})); // C does not broadcast
}

// constant B (the x86 driver packs it as the SGEMM's A): sizes past the
// register blocks and the K block (partial row and column panels, two K
// blocks, two groups of row panels: N > 8 x 12), per-column C, alpha 1 (plain
// epilogue) and not
TEST(Gemm, sgemm_sized)
{
    reseed(33);
    const int M = 45, N = 101, K = 300;
    for (int tb : {0, 1})
    {
        const float alpha = tb ? 0.5f : 1.f;
        std::vector<float> A = randv(M * K), B = randv(K * N), cv = randv(N);
        std::vector<float> Cfull(M * N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                Cfull[i * N + j] = cv[j];
        ParamDict pd;
        pd.set(0, alpha);
        pd.set(3, tb);
        pd.set(5, 1);
        pd.set(6, 1);
        pd.set(8, N);
        pd.set(9, K);
        pd.set(10, 4);
        Mat c((int)cv.size());
        for (int j = 0; j < N; j++)
            c[j] = cv[j];
        std::vector<Mat> out = run_all("Gemm", pd, {matrix(B, K, N, tb), c}, {matrix(A, M, K, false)});
        ASSERT_EQ(out.size(), 1u);
        ASSERT_TRUE(same_shape(out[0], 2, N, M));
        std::vector<float> want = naive(A, B, &Cfull, M, N, K, alpha, 1.f);
        for (int i = 0; i < M * N; i++)
            ASSERT_TRUE(near(out[0][i], want[i], 1e-3f)) << "tb " << tb << " alpha " << alpha << " at " << i;
    }
}
