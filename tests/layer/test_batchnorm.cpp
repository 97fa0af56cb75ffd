#include "math_test_helpers.h"

#include <cmath>

using namespace kite;
using namespace kite::test;

TEST(BatchNorm, formula_all_dims)
{
    reseed(54);
    const int C = 6;
    Mat slope = RandomMat(C), mean = RandomMat(C), var = RandomMat(C, 0.1f, 2.f), bias = RandomMat(C);
    for (int dims : {1, 2, 3, 4})
    {
        Mat in = dims == 1 ? RandomMat(C) : dims == 2 ? RandomMat(5, C) : dims == 3 ? RandomMat(4, 3, C) : RandomMat(3, 2, 2, C);
        ParamDict pd;
        pd.set(0, C);
        pd.set(1, 0.001f);
        std::vector<Mat> out = run_all("BatchNorm", pd, {slope, mean, var, bias}, {in});
        ASSERT_EQ(out.size(), 1u);
        for (int c = 0; c < C; c++)
        {
            float x = dims == 1 ? in[c] : dims == 2 ? at(in, 1, c) : at(in, 1, 1, 0, c);
            float y = dims == 1 ? out[0][c] : dims == 2 ? at(out[0], 1, c) : at(out[0], 1, 1, 0, c);
            EXPECT_TRUE(near(y, slope[c] * (x - mean[c]) / std::sqrt(var[c] + 0.001f) + bias[c]));
        }
    }
    ParamDict pd;
    pd.set(0, C);
    EXPECT_TRUE(reference_fails("BatchNorm", pd, {slope, mean, var, bias}, {RandomMat(3, 3, 4)}));
    ParamDict p0;
    EXPECT_TRUE(reference_fails("BatchNorm", p0, {}, {RandomMat(3, 3, 4)}));
}

// The CPU driver on random data: packable and odd channel counts on every
// dims, every elempack, fp16 storage; no run may fall back to the reference.
TEST(BatchNorm, driver_every_dims_and_pack)
{
    reseed(1804);
    for (int C : {16, 12, 37, 8})
    {
        Mat slope = RandomMat(C), mean = RandomMat(C), var = RandomMat(C, 0.1f, 2.f), bias = RandomMat(C);
        ParamDict pd;
        pd.set(0, C);
        pd.set(1, 0.001f);
        for (int dims : {1, 2, 3, 4})
        {
            Mat in = dims == 1 ? RandomMat(C) : dims == 2 ? RandomMat(7, C) : dims == 3 ? RandomMat(5, 3, C) : RandomMat(3, 2, 3, C);
            TestLayerFlags flags;
            flags.forbid_reference = true;
            const std::string r = test_layer("BatchNorm", pd, {slope, mean, var, bias}, {in}, flags);
            EXPECT_TRUE(r.empty()) << r << " channels " << C << " dims " << dims;
        }
    }
    // a 1-D blob long enough to be split between threads
    Mat slope = RandomMat(5000), mean = RandomMat(5000), var = RandomMat(5000, 0.1f, 2.f), bias = RandomMat(5000);
    ParamDict pd;
    pd.set(0, 5000);
    TestLayerFlags flags;
    flags.forbid_reference = true;
    const std::string r = test_layer("BatchNorm", pd, {slope, mean, var, bias}, {RandomMat(5000)}, flags);
    EXPECT_TRUE(r.empty()) << r;
}
