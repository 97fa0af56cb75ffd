#include "math_test_helpers.h"

using namespace kite;
using namespace kite::test;

TEST(Bias, per_channel)
{
    reseed(56);
    Mat in = RandomMat(5, 4, 6), b = RandomMat(6);
    ParamDict pd;
    pd.set(0, 6);
    std::vector<Mat> out = run_all("Bias", pd, {b}, {in});
    ASSERT_EQ(out.size(), 1u);
    for (int c = 0; c < 6; c++)
        EXPECT_TRUE(near(at(out[0], 4, 3, 0, c), at(in, 4, 3, 0, c) + b[c]));
    EXPECT_EQ(run_all("Bias", pd, {b}, {RandomMat(3, 2, 2, 6)}).size(), 1u);
    EXPECT_TRUE(reference_fails("Bias", pd, {b}, {RandomMat(5, 4, 5)}));
}

// The CPU driver on random data: packable and odd channel counts on every
// dims, every elempack, fp16 storage (test_layer); no run may fall back to the
// reference.
TEST(Bias, driver_every_dims_and_pack)
{
    reseed(2712);
    for (int C : {16, 12, 37, 8, 3})
    {
        Mat b = RandomMat(C);
        ParamDict pd;
        pd.set(0, C);
        for (int dims : {1, 2, 3, 4})
        {
            Mat in = dims == 1 ? RandomMat(C) : dims == 2 ? RandomMat(7, C) : dims == 3 ? RandomMat(5, 3, C) : RandomMat(3, 2, 3, C);
            TestLayerFlags flags;
            flags.forbid_reference = true;
            const std::string r = test_layer("Bias", pd, {b}, {in}, flags);
            EXPECT_TRUE(r.empty()) << r << " channels " << C << " dims " << dims;
        }
    }
}
