#include "elementwise_check.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kite;
using namespace kite::test;

struct UnaryCase
{
    int op;
    const char* name;
    float lo, hi;
    double tol;
};

// independent double-precision definitions
static double want(int op, double x)
{
    switch (op)
    {
    case 0: return std::fabs(x);
    case 1: return -x;
    case 2: return std::floor(x);
    case 3: return std::ceil(x);
    case 4: return (double)((float)x * (float)x);
    case 5: return std::sqrt(x);
    case 6: return 1.0 / std::sqrt(x);
    case 7: return std::exp(x);
    case 8: return std::log(x);
    case 9: return std::sin(x);
    case 10: return std::cos(x);
    case 11: return std::tan(x);
    case 12: return std::asin(x);
    case 13: return std::acos(x);
    case 14: return std::atan(x);
    case 15: return 1.0 / x;
    case 16: return std::tanh(x);
    case 17: return std::log10(x);
    case 18: return std::nearbyint(x); // default mode: ties to even
    case 19: return std::trunc(x);
    }
    return NAN;
}

static const UnaryCase kCases[] = {
    {0, "abs", -3, 3, 0},        {1, "neg", -3, 3, 0},          {2, "floor", -5, 5, 0},     {3, "ceil", -5, 5, 0},
    {4, "square", -3, 3, 0},     {5, "sqrt", 0.f, 4, 1e-6},     {6, "rsqrt", 0.05f, 4, 1e-6}, {7, "exp", -4, 4, 1e-6},
    {8, "log", 0.01f, 5, 1e-6},  {9, "sin", -4, 4, 1e-6},       {10, "cos", -4, 4, 1e-6},   {11, "tan", -1.2f, 1.2f, 1e-6},
    {12, "asin", -1, 1, 1e-6},   {13, "acos", -1, 1, 1e-6},     {14, "atan", -5, 5, 1e-6},  {15, "reciprocal", 0.1f, 3, 1e-6},
    {16, "tanh", -4, 4, 1e-6},   {17, "log10", 0.01f, 5, 1e-6}, {18, "round", -6, 6, 0},    {19, "trunc", -6, 6, 0},
};

TEST(UnaryOp, every_op_every_dims)
{
    reseed(221);
    for (const UnaryCase& u : kCases)
    {
        ParamDict pd;
        pd.set(0, u.op);
        SCOPED_TRACE(u.name);
        for (const Mat& in : odd_shapes(u.lo, u.hi))
            KITE_EXPECT_LAYER_OK(check_unary_layer("UnaryOp", pd, {}, in, [&u](float x, const Coord&) { return want(u.op, x); }, u.tol));
    }
}

TEST(UnaryOp, negative_inputs)
{
    reseed(222);
    for (int op : {15, 2, 3, 18, 19})
    {
        ParamDict pd;
        pd.set(0, op);
        KITE_EXPECT_LAYER_OK(check_unary_layer("UnaryOp", pd, {}, RandomMat(9, 5, 3, -3.f, -0.1f), [op](float x, const Coord&) { return want(op, x); }, 1e-6));
    }
}

TEST(UnaryOp, round_ties_to_even)
{
    const float xs[] = {0.5f, 1.5f, 2.5f, 3.5f, -0.5f, -1.5f, -2.5f, 2.4999998f, 2.5000002f, 8388607.5f, 1e9f, -7.f};
    const float ys[] = {0.f, 2.f, 2.f, 4.f, -0.f, -2.f, -2.f, 2.f, 3.f, 8388608.f, 1e9f, -7.f};
    const int n = sizeof(xs) / sizeof(xs[0]);
    Mat in(n);
    for (int i = 0; i < n; i++)
        in[i] = xs[i];
    ParamDict pd;
    pd.set(0, 18);
    std::string why;
    std::vector<Mat> out = run_reference("UnaryOp", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    for (int i = 0; i < n; i++)
        EXPECT_EQ(out[0][i], ys[i]) << "round(" << xs[i] << ")";
}

TEST(UnaryOp, default_is_abs)
{
    reseed(223);
    KITE_EXPECT_LAYER_OK(check_unary_layer("UnaryOp", ParamDict(), {}, RandomMat(7, 5, 3), [](float x, const Coord&) { return std::fabs((double)x); }, 0.0));
}

TEST(UnaryOp, unknown_op_is_rejected)
{
    for (int op : {-1, 20, 100})
    {
        ParamDict pd;
        pd.set(0, op);
        int load_ret = 0;
        reference_forward_ret("UnaryOp", pd, {}, {RandomMat(5)}, &load_ret);
        EXPECT_EQ(load_ret, -1) << op;
    }
}
