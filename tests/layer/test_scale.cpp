#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(Scale, weights_and_second_input)
{
    reseed(55);
    const int C = 5;
    for (int dims : {1, 2, 3, 4})
        for (int bias : {0, 1})
        {
            Mat in = dims == 1 ? RandomMat(C) : dims == 2 ? RandomMat(4, C) : dims == 3 ? RandomMat(4, 3, C) : RandomMat(3, 2, 2, C);
            Mat s = RandomMat(C), b = RandomMat(C);
            ParamDict pd;
            pd.set(0, C);
            pd.set(1, bias);
            std::vector<Mat> w = {s};
            if (bias)
                w.push_back(b);
            std::vector<Mat> out = run_all("Scale", pd, w, {in});
            ASSERT_EQ(out.size(), 1u);
            for (int c = 0; c < C; c++)
            {
                float x = dims == 1 ? in[c] : dims == 2 ? at(in, 2, c) : at(in, 2, 1, 0, c);
                float y = dims == 1 ? out[0][c] : dims == 2 ? at(out[0], 2, c) : at(out[0], 2, 1, 0, c);
                EXPECT_TRUE(near(y, x * s[c] + (bias ? b[c] : 0.f)));
            }
        }
    Mat in = RandomMat(4, 3, C), s = RandomMat(C);
    ParamDict p2;
    p2.set(0, -233);
    // in place on the first input (the harness hands back both blobs)
    std::vector<Mat> out = run_all("Scale", p2, {}, {in, s});
    ASSERT_GE(out.size(), 1u);
    EXPECT_TRUE(near(at(out[0], 3, 2, 0, 4), at(in, 3, 2, 0, 4) * s[4]));
    EXPECT_TRUE(reference_fails("Scale", p2, {}, {in, RandomMat(C + 1)}));
    ParamDict pd;
    pd.set(0, C);
    EXPECT_TRUE(reference_fails("Scale", pd, {RandomMat(C)}, {RandomMat(4, 3, C + 2)}));
}

// The CPU driver on random data: packable and odd channel counts on every
// dims, with and without bias, every elempack, fp16 storage (test_layer); no
// run may fall back to the reference. The -233 form keeps the reference row.
TEST(Scale, driver_every_dims_and_pack)
{
    reseed(2711);
    for (int C : {16, 37, 3})
        for (int bias : {0, 1})
        {
            Mat s = RandomMat(C), b = RandomMat(C);
            ParamDict pd;
            pd.set(0, C);
            pd.set(1, bias);
            std::vector<Mat> w = {s};
            if (bias)
                w.push_back(b);
            for (int dims : {1, 2, 3, 4})
            {
                Mat in = dims == 1 ? RandomMat(C) : dims == 2 ? RandomMat(7, C) : dims == 3 ? RandomMat(5, 3, C) : RandomMat(3, 2, 3, C);
                TestLayerFlags flags;
                flags.forbid_reference = true;
                const std::string r = test_layer("Scale", pd, w, {in}, flags);
                EXPECT_TRUE(r.empty()) << r << " channels " << C << " bias " << bias << " dims " << dims;
            }
        }
    Mat s = RandomMat(5000);
    ParamDict pd;
    pd.set(0, 5000);
    TestLayerFlags flags;
    flags.forbid_reference = true;
    const std::string r = test_layer("Scale", pd, {s}, {RandomMat(5000)}, flags);
    EXPECT_TRUE(r.empty()) << r;
}
