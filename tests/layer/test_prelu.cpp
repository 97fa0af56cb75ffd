#include "elementwise_check.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

// which index of an element picks its slope: w for dims 1, h for dims 2, c for 3/4
static int slope_index(const Mat& in, const Coord& c)
{
    return in.dims == 1 ? c.x : in.dims == 2 ? c.y : c.q;
}

static int slope_axis(const Mat& in)
{
    return in.dims == 1 ? in.w : in.dims == 2 ? in.h : in.c;
}

TEST(PReLU, shared_slope)
{
    reseed(201);
    for (const Mat& in : odd_shapes(-2.f, 2.f))
    {
        ParamDict pd;
        pd.set(0, 1);
        Mat slope = RandomMat(1, -1.f, 1.f);
        const float s = slope[0];
        KITE_EXPECT_LAYER_OK(check_unary_layer("PReLU", pd, {slope}, in, [s](float x, const Coord&) {
            return x < 0 ? (double)(x * s) : (double)x;
        }, 0.0));
    }
}

TEST(PReLU, slope_per_axis)
{
    reseed(202);
    for (const Mat& in : odd_shapes(-2.f, 2.f))
    {
        const int n = slope_axis(in);
        if (n < 2)
            continue;
        ParamDict pd;
        pd.set(0, n);
        Mat slope = RandomMat(n, -1.f, 1.f);
        KITE_EXPECT_LAYER_OK(check_unary_layer("PReLU", pd, {slope}, in, [&](float x, const Coord& c) {
            return x < 0 ? (double)(x * slope[slope_index(in, c)]) : (double)x;
        }, 0.0));
    }
}

TEST(PReLU, bad_params_and_shapes_are_errors)
{
    reseed(203);
    int load_ret = 0;
    ParamDict zero;
    zero.set(0, 0);
    EXPECT_NE(reference_forward_ret("PReLU", zero, {}, {RandomMat(5, 4, 3)}, &load_ret), 0);
    EXPECT_EQ(load_ret, -1);

    // 4 slopes for 3 channels
    ParamDict pd;
    pd.set(0, 4);
    EXPECT_EQ(reference_forward_ret("PReLU", pd, {RandomMat(4)}, {RandomMat(5, 4, 3)}), -1);
    // 4 slopes for a 2-D input of 5 rows
    EXPECT_EQ(reference_forward_ret("PReLU", pd, {RandomMat(4)}, {RandomMat(4, 5)}), -1);
    // missing weights
    EXPECT_NE(reference_forward_ret("PReLU", pd, {}, {RandomMat(5, 4, 4)}), 0);
}

// The CPU driver on random data: one shared slope and one per channel, packable
// and odd channel counts on every dims, every elempack, fp16 storage, 1 and 2
// threads (test_layer); no run may fall back to the reference.
TEST(PReLU, driver_every_dims_and_pack)
{
    reseed(2714);
    for (int C : {16, 12, 37, 3})
        for (bool shared : {false, true})
        {
            ParamDict pd;
            pd.set(0, shared ? 1 : C);
            Mat slope = RandomMat(shared ? 1 : C);
            for (int dims : {1, 2, 3, 4})
            {
                Mat in = dims == 1 ? RandomMat(C) : dims == 2 ? RandomMat(7, C) : dims == 3 ? RandomMat(5, 3, C) : RandomMat(3, 2, 3, C);
                TestLayerFlags flags;
                flags.forbid_reference = true;
                const std::string r = test_layer("PReLU", pd, {slope}, {in}, flags);
                EXPECT_TRUE(r.empty()) << r << " channels " << C << " shared " << shared << " dims " << dims;
            }
        }
}
