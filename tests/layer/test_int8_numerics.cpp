// The int8 arithmetic that kite copies from ncnn's x86 kernels so that
// quantized graphs give the same int8 values (layer/common/int8.h,
// ConvolutionDepthWise's elempack-8 path, Convolution's requantize).
// Expected values are computed here independently (double arithmetic, direct
// loops), not taken from the code under test.

#include "../../layer/common/int8.h"
#include "cpu.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

using namespace kite;
using namespace kite::test;

// float2int8_addhalf, written from its definition: v + copysign(0.5, v) is
// exact in double for these magnitudes; rounding that once to float is what
// the float add does; then truncate and clamp.
static int addhalf_expected(float v)
{
    const double exact = (double)v + (std::signbit(v) ? -0.5 : 0.5);
    const float a = (float)exact;
    if (std::isnan(a) || std::fabs((double)a) >= 2147483648.0)
        return -127;
    double t = std::trunc((double)a);
    if (t > 127)
        t = 127;
    if (t < -127)
        t = -127;
    return (int)t;
}

TEST(Int8Numerics, float2int8_addhalf_known_values)
{
    // just below .5 where adding 0.5 rounds up in float: SIMD gives the upper value
    EXPECT_EQ(float2int8_addhalf(0.49999997f), 1);
    EXPECT_EQ(float2int8(0.49999997f), 0);
    EXPECT_EQ(float2int8_addhalf(-0.49999997f), -1);
    // 1.5 - ulp + 0.5 is representable: no difference there
    EXPECT_EQ(float2int8_addhalf(nextafterf(1.5f, 0.f)), 1);
    // halves go away from zero, like round()
    EXPECT_EQ(float2int8_addhalf(2.5f), 3);
    EXPECT_EQ(float2int8_addhalf(-2.5f), -3);
    EXPECT_EQ(float2int8_addhalf(0.f), 0);
    EXPECT_EQ(float2int8_addhalf(-0.f), 0);
    EXPECT_EQ(float2int8_addhalf(2.4999998f), 2);
    // saturation, and what cvttps makes of NaN / huge values (INT_MIN -> -127)
    EXPECT_EQ(float2int8_addhalf(126.6f), 127);
    EXPECT_EQ(float2int8_addhalf(1000.f), 127);
    EXPECT_EQ(float2int8_addhalf(-1000.f), -127);
    EXPECT_EQ(float2int8_addhalf(3e9f), -127);
    EXPECT_EQ(float2int8_addhalf(std::numeric_limits<float>::infinity()), -127);
    EXPECT_EQ(float2int8_addhalf(-std::numeric_limits<float>::infinity()), -127);
    EXPECT_EQ(float2int8_addhalf(std::numeric_limits<float>::quiet_NaN()), -127);
}

TEST(Int8Numerics, float2int8_addhalf_matches_definition)
{
    reseed(11);
    int differs_from_round = 0;
    for (int i = 0; i < 200000; i++)
    {
        const float v = rand_float(-140.f, 140.f);
        ASSERT_EQ((int)float2int8_addhalf(v), addhalf_expected(v)) << "v=" << v;
    }
    // every k + 0.5 and its float neighbours
    for (int k = -131; k <= 130; k++)
    {
        const float h = (float)k + 0.5f;
        for (float v : {nextafterf(h, 0.f), h, nextafterf(h, h * 2.f)})
        {
            ASSERT_EQ((int)float2int8_addhalf(v), addhalf_expected(v)) << "v=" << v;
            differs_from_round += float2int8_addhalf(v) != float2int8(v);
        }
    }
    // only +-0.49999997 (0.5 - 2^-25: the sum 1 - 2^-25 is a tie that rounds
    // to 1.0) differ from round-half-away; above 0.5 the sum stays exact
    EXPECT_EQ(differs_from_round, 2);
}

// quantize_floats (load-time weight quantization, the Quantize reference) is
// float2int8(v * scale) written without std::round: compare it with
// float2int8 on random values, every half and its neighbours, and the
// special values
TEST(Int8Numerics, quantize_floats_matches_float2int8)
{
    reseed(12);
    std::vector<float> v;
    for (int i = 0; i < 100000; i++)
        v.push_back(rand_float(-150.f, 150.f));
    for (int k = -131; k <= 130; k++)
    {
        const float h = (float)k + 0.5f;
        v.push_back(nextafterf(h, 0.f));
        v.push_back(h);
        v.push_back(nextafterf(h, h * 2.f));
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (float x : {0.f, -0.f, 0.49999997f, -0.49999997f, 126.5f, -126.5f, 127.f, -127.f, 127.49f, 3e9f, -3e9f, inf, -inf,
                    std::numeric_limits<float>::quiet_NaN(), FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX})
        v.push_back(x);
    v.push_back(0.5f); // an odd count: the vector loop's scalar tail too
    for (float scale : {1.f, 0.37f, 113.f})
    {
        std::vector<signed char> q(v.size());
        quantize_floats(v.data(), q.data(), v.size(), scale);
        for (size_t i = 0; i < v.size(); i++)
            ASSERT_EQ((int)q[i], (int)float2int8(v[i] * scale)) << "v=" << v[i] << " scale=" << scale << " seed=12";
    }
}

TEST(Int8Numerics, dequant_scale_rcp)
{
    EXPECT_EQ(int8_dequant_scale_rcp(60.f, 0.f), 0.f);
    EXPECT_EQ(int8_dequant_scale_rcp(60.f, -0.f), 0.f);
    reseed(12);
    const double bound = 1.5 / 4096.0; // Intel/AMD document |rel err| <= 1.5 * 2^-12
    int inexact = 0;
    for (int i = 0; i < 10000; i++)
    {
        const float b = rand_float(1.f, 200.f), w = rand_float(1.f, 400.f);
        const double exact = 1.0 / ((double)(b * w));
        const double got = int8_dequant_scale_rcp(b, w);
        ASSERT_LE(std::fabs(got - exact) / exact, bound) << b << " " << w;
        inexact += got != (double)(1.f / (b * w));
    }
#if KITE_INT8_HAVE_RCPSS
    EXPECT_GT(inexact, 5000); // it is the approximation, not the division
#else
    EXPECT_EQ(inexact, 0);
#endif
}

// depth-wise 3x3 int8, pad 1, stride 1, int8 weights, bias, relu
struct DwCase
{
    int w, h, c;
    Mat in, wt, bias, wscales, bscale, tscale;
};

static std::vector<Mat> run_dw(const DwCase& t, int scale_term, bool packing)
{
    ParamDict pd;
    pd.set(0, t.c);
    pd.set(1, 3);
    pd.set(4, 1);
    pd.set(5, 1);
    pd.set(6, t.c * 9);
    pd.set(7, t.c);
    pd.set(8, scale_term);
    pd.set(9, 1);
    std::vector<Mat> weights = {t.wt, t.bias, t.wscales, t.bscale};
    if (scale_term > 100)
        weights.push_back(t.tscale);
    Option opt;
    opt.num_threads = 1;
    opt.use_packing_layout = packing;
    opt.use_fp16_storage = false;
    opt.use_bf16_storage = false;
    std::string why;
    Layer* l = make_layer("ConvolutionDepthWise", BACKEND_CPU, CPU_ISA_NONE, pd, weights, opt, &why);
    std::vector<Mat> out(1);
    if (!l)
    {
        ADD_FAILURE() << why;
        out.clear();
        return out;
    }
    if (run_layer_forward(l, {t.in}, out, opt) != 0)
    {
        ADD_FAILURE() << "forward failed";
        out.clear();
    }
    l->destroy_pipeline(opt);
    delete l;
    return out;
}

// expected output of one channel element: int32 sum computed here, then the
// float steps of the kernel being mirrored
static int dw_sum(const DwCase& t, const std::vector<signed char>& qin, int q, int y, int x)
{
    const signed char* w8 = (const signed char*)t.wt.data + q * 9;
    int sum = 0;
    for (int ky = 0; ky < 3; ky++)
        for (int kx = 0; kx < 3; kx++)
        {
            const int iy = y + ky - 1, ix = x + kx - 1;
            if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w)
                continue;
            sum += qin[((size_t)q * t.h + iy) * t.w + ix] * w8[ky * 3 + kx];
        }
    return sum;
}

TEST(Int8Numerics, depthwise_pack8_uses_rcp_scale_and_simd_rounding)
{
    reseed(13);
    DwCase t;
    t.w = 13;
    t.h = 11;
    t.c = 16;
    t.in = RandomMat(t.w, t.h, t.c);
    t.wt = RandomS8Mat(t.c * 9);
    t.bias = RandomMat(t.c);
    t.wscales = RandomMat(t.c, 50.f, 150.f);
    t.bscale = RandomMat(1, 60.f, 120.f);
    t.tscale = RandomMat(1, 30.f, 60.f);
    const float bs = t.bscale[0], so = t.tscale[0];

    // the input quantized independently: round half away, clamp
    std::vector<signed char> qin((size_t)t.c * t.h * t.w);
    for (int q = 0; q < t.c; q++)
        for (int i = 0; i < t.h * t.w; i++)
        {
            double v = std::round((double)(t.in.channel(q)[i] * bs));
            qin[(size_t)q * t.h * t.w + i] = (signed char)std::max(-127.0, std::min(127.0, v));
        }

    for (bool packing : {true, false})
    {
        std::vector<Mat> deq = run_dw(t, 1, packing);
        std::vector<Mat> req = run_dw(t, 101, packing);
        ASSERT_EQ(deq.size(), 1u);
        ASSERT_EQ(req.size(), 1u);
        ASSERT_EQ(req[0].elemsize, 1u);
        int req_mismatch = 0, deq_mismatch = 0;
        for (int q = 0; q < t.c; q++)
        {
            const float prod = bs * t.wscales[q];
#if KITE_INT8_HAVE_RCPSS
            const float rcp = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(prod)));
#else
            const float rcp = 1.f / prod;
#endif
            const float scale_in = packing ? rcp : 1.f / prod;
            for (int y = 0; y < t.h; y++)
                for (int x = 0; x < t.w; x++)
                {
                    const int sum = dw_sum(t, qin, q, y, x);
                    volatile float v = (float)sum * scale_in; // two roundings, no FMA
                    float f = v + t.bias[q];
                    f = f > 0.f ? f : 0.f;
                    const float deq_got = deq[0].channel(q)[y * t.w + x];
                    deq_mismatch += deq_got != f;
                    const float s = f * so;
                    const int want = packing ? addhalf_expected(s) : (int)std::max(-127.0, std::min(127.0, std::round((double)s)));
                    const int got = ((const signed char*)req[0].channel(q).data)[y * t.w + x];
                    req_mismatch += got != want;
                }
        }
        EXPECT_EQ(deq_mismatch, 0) << "packing=" << packing;
        EXPECT_EQ(req_mismatch, 0) << "packing=" << packing;
    }
}

// Convolution's int8 output: fma(sum, scale_in, bias) in one rounding, relu,
// * scale_out, SIMD rounding (ncnn's x86 Requantize on an FMA CPU). Rounding
// twice (sum * scale_in, then + bias) changes the int8 value only for about
// 1 in 10^5 outputs, so the channels are picked (weight, scales, bias) where
// it does for some input value q in [-127, 127]: a 1x1 convolution of one
// input channel that holds every q (x = q / bottom_scale quantizes to q).
static float requant_expected(int sum, float scale_in, float bias, float so, bool one_rounding)
{
    float f;
    if (one_rounding) // sum * scale_in is exact in double (< 2^15 times 24 bits)
        f = (float)((double)sum * (double)scale_in + (double)bias);
    else
    {
        volatile float m = (float)sum * scale_in;
        f = m + bias;
    }
    f = f > 0.f ? f : 0.f;
    return f * so;
}

TEST(Int8Numerics, convolution_requantize_fma)
{
    reseed(14);
    const float bs = 64.f, so = 40.f;
    const int nq = 255;
    std::vector<signed char> w8s;
    std::vector<float> wss, biases;
    for (int trial = 0; trial < 200000 && w8s.size() < 6; trial++)
    {
        const int w8 = (int)rand_float(-127.f, 127.f);
        const float ws = rand_float(50.f, 150.f), b = rand_float(-1.f, 1.f);
        const float scale_in = 1.f / (bs * ws);
        bool differs = false;
        for (int q = -127; q <= 127 && !differs; q++)
            differs = addhalf_expected(requant_expected(q * w8, scale_in, b, so, true)) != addhalf_expected(requant_expected(q * w8, scale_in, b, so, false));
        if (differs)
        {
            w8s.push_back((signed char)w8);
            wss.push_back(ws);
            biases.push_back(b);
        }
    }
    ASSERT_EQ(w8s.size(), 6u) << "no channel found where the roundings differ";
    const int outc = (int)w8s.size();
    Mat in(nq, 1, 1), wt(outc, (size_t)1u), bias(outc), wscales(outc), bscale(1), tscale(1);
    for (int i = 0; i < nq; i++)
        in[i] = (float)(i - 127) / bs;
    for (int p = 0; p < outc; p++)
    {
        ((signed char*)wt.data)[p] = w8s[p];
        bias[p] = biases[p];
        wscales[p] = wss[p];
    }
    bscale[0] = bs;
    tscale[0] = so;
    ParamDict pd;
    pd.set(0, outc);
    pd.set(1, 1);
    pd.set(5, 1);
    pd.set(6, outc);
    pd.set(8, 101);
    pd.set(9, 1);
    std::string why;
    std::vector<Mat> out = run_reference("Convolution", pd, {wt, bias, wscales, bscale, tscale}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    ASSERT_EQ(out[0].elemsize, 1u);
    int mismatch = 0, two_roundings_would_mismatch = 0;
    for (int p = 0; p < outc; p++)
    {
        const float scale_in = 1.f / (bs * wss[p]);
        for (int i = 0; i < nq; i++)
        {
            const int sum = (i - 127) * w8s[p];
            const int got = ((const signed char*)out[0].channel(p).data)[i];
            mismatch += got != addhalf_expected(requant_expected(sum, scale_in, biases[p], so, true));
            two_roundings_would_mismatch += got != addhalf_expected(requant_expected(sum, scale_in, biases[p], so, false));
        }
    }
    EXPECT_EQ(mismatch, 0);
    EXPECT_GE(two_roundings_would_mismatch, outc);
    // the optimised rows (x86 pmaddwd GEMM + vector epilogue) give the same int8 values
    KITE_EXPECT_LAYER_OK(test_layer("Convolution", pd, {wt, bias, wscales, bscale, tscale}, {in}));
}
