// layer/simd math (simd_math.h) at every ISA level and vector width this CPU
// runs, against double-precision libm; the bounds are the ones documented in
// simd_math.h. The scalar width (the tail of every kernel) is checked too.
#include "cpu.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#define X(isa, e) namespace kite { namespace isa { int simd_math_eval(int func, int width, const float* x, float* y, size_t n); } }
KITE_SIMD_TEST_ISAS
#undef X

namespace {

typedef int (*eval_fn)(int, int, const float*, float*, size_t);

struct IsaRow
{
    const char* name;
    int isa;
    eval_fn eval;
};

const IsaRow kRows[] = {
#define X(isa, e) {#isa, kite::e, kite::isa::simd_math_eval},
    KITE_SIMD_TEST_ISAS
#undef X
};

struct Func
{
    const char* name;
    float lo, hi;
    double abs_tol, rel_tol; // |got - want| <= abs_tol * scale + rel_tol * |want|
    bool scale_abs_by_x;     // abs_tol * max(1, |x|)
    double (*ref)(double);
};

double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double ref_gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
double ref_exp(double x) { return std::exp(x); }
double ref_log(double x) { return std::log(x); }
double ref_tanh(double x) { return std::tanh(x); }
double ref_erf(double x) { return std::erf(x); }

// order matches simd_math_eval's func index
const Func kFuncs[] = {
    {"exp", -87.f, 88.f, 0.0, 2.0e-7, false, ref_exp},
    {"log", 1e-30f, 1e30f, 1.5e-7, 2.0e-7, false, ref_log},
    {"tanh", -10.f, 10.f, 1.5e-7, 0.0, false, ref_tanh},
    {"sigmoid", -30.f, 30.f, 2.0e-7, 0.0, false, ref_sigmoid},
    {"erf", -6.f, 6.f, 4.0e-7, 0.0, false, ref_erf},
    {"gelu_erf", -8.f, 8.f, 4.0e-7, 0.0, true, ref_gelu_erf},
    {"gelu_tanh", -8.f, 8.f, 4.0e-7, 0.0, true, ref_gelu_tanh},
};

std::vector<float> grid(const Func& f)
{
    std::vector<float> x;
    const int n = 200000;
    if (f.lo > 0.f) // log: geometric grid over the whole range
    {
        double a = std::log((double)f.lo), b = std::log((double)f.hi);
        for (int i = 0; i < n; i++)
            x.push_back((float)std::exp(a + (b - a) * i / (n - 1)));
    }
    else
    {
        for (int i = 0; i < n; i++)
            x.push_back(f.lo + (f.hi - f.lo) * (float)i / (n - 1));
        // dense near zero, where relative accuracy is hardest
        for (int i = -2000; i <= 2000; i++)
            x.push_back(i * 1e-4f);
    }
    while (x.size() % 16)
        x.push_back(0.5f);
    return x;
}

TEST(SimdMath, ErrorBoundsEveryIsaAndWidth)
{
    int tested = 0;
    for (const IsaRow& row : kRows)
    {
        if (!kite::cpu_support_isa(row.isa))
            continue;
        for (int fi = 0; fi < (int)(sizeof(kFuncs) / sizeof(kFuncs[0])); fi++)
        {
            const Func& f = kFuncs[fi];
            std::vector<float> x = grid(f);
            std::vector<float> y(x.size());
            for (int width : {1, 4, 8, 16})
            {
                if (row.eval(fi, width, x.data(), y.data(), x.size()) != 0)
                    continue;
                tested++;
                double worst = 0.0, worst_abs = 0.0;
                size_t worst_i = 0;
                for (size_t i = 0; i < x.size(); i++)
                {
                    double want = f.ref((double)x[i]);
                    double err = std::fabs((double)y[i] - want);
                    double tol = f.abs_tol * (f.scale_abs_by_x ? std::max(1.0, std::fabs((double)x[i])) : 1.0) + f.rel_tol * std::fabs(want);
                    if (err / tol > worst)
                    {
                        worst = err / tol;
                        worst_i = i;
                        worst_abs = err;
                    }
                }
                printf("%-7s %-10s width %2d: worst error %.3g at x=%.9g (%.2f of the bound)\n", row.name, f.name, width,
                       worst_abs, x[worst_i], worst);
                EXPECT_LE(worst, 1.0) << row.name << " " << f.name << " width " << width << ": error " << worst_abs << " at x="
                                      << x[worst_i] << " got " << y[worst_i] << " want " << f.ref(x[worst_i]);
            }
        }
    }
    EXPECT_GT(tested, 0);
}

TEST(SimdMath, SpecialValues)
{
    for (const IsaRow& row : kRows)
    {
        if (!kite::cpu_support_isa(row.isa))
            continue;
        std::vector<float> x = {0.f, -1.f, 1000.f, -1000.f, 1e-30f, INFINITY, 1.f, 2.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        std::vector<float> y(16);
        for (int width : {1, 4, 8, 16})
        {
            if (row.eval(1, width, x.data(), y.data(), 16) != 0)
                continue;
            EXPECT_TRUE(std::isinf(y[0]) && y[0] < 0) << row.name << " log(0) = " << y[0];
            EXPECT_TRUE(std::isnan(y[1])) << row.name << " log(-1) = " << y[1];
            row.eval(0, width, x.data(), y.data(), 16);
            EXPECT_TRUE(std::isfinite(y[2]) && y[2] > 1e38f) << row.name << " exp(1000) = " << y[2];
            EXPECT_EQ(y[3], 0.f) << row.name << " exp(-1000)";
            row.eval(2, width, x.data(), y.data(), 16);
            EXPECT_EQ(y[2], 1.f) << row.name << " tanh(1000)";
            EXPECT_EQ(y[3], -1.f) << row.name << " tanh(-1000)";
            EXPECT_EQ(y[0], 0.f) << row.name << " tanh(0)";
            row.eval(3, width, x.data(), y.data(), 16);
            EXPECT_EQ(y[2], 1.f) << row.name << " sigmoid(1000)";
            EXPECT_LT(std::fabs(y[3]), 1e-37f) << row.name << " sigmoid(-1000)";
        }
    }
}

} // namespace
