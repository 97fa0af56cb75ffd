#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

static double gelu_exact(double x)
{
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

static double gelu_tanh(double x)
{
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

TEST(GELU, exact_by_default)
{
    reseed(71);
    for (const Mat& in : odd_shapes(-5.f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("GELU", ParamDict(), {}, in, [](float x, const Coord&) { return gelu_exact(x); }));
}

TEST(GELU, fast_gelu_is_tanh_approximation)
{
    reseed(72);
    ParamDict pd;
    pd.set(0, 1);
    for (const Mat& in : odd_shapes(-5.f, 5.f))
        KITE_EXPECT_LAYER_OK(check_unary_layer("GELU", pd, {}, in, [](float x, const Coord&) { return gelu_tanh(x); }));
}

TEST(GELU, approximation_differs_from_exact)
{
    // the two modes must really be different functions
    EXPECT_GT(std::fabs(gelu_exact(-2.0) - gelu_tanh(-2.0)), 1e-5);
    reseed(73);
    ParamDict fast;
    fast.set(0, 1);
    Mat in(1);
    in[0] = -2.f;
    std::string why;
    std::vector<Mat> a = run_reference("GELU", ParamDict(), {}, {in}, &why);
    std::vector<Mat> b = run_reference("GELU", fast, {}, {in}, &why);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_GT(std::fabs(a[0][0] - b[0][0]), 1e-5f);
}
