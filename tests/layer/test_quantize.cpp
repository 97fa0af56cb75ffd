#include "conv_naive.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

// groups: rows (dims 2) or channels (dims 3/4); dims 1 is one group (ncnn uses element 0)
static int groups_of(const Mat& m)
{
    return m.dims == 1 ? 1 : m.dims == 2 ? m.h : m.c;
}

static std::string run_quantize(const Mat& in, bool per_group)
{
    const int n = per_group ? groups_of(in) : 1;
    ParamDict pd;
    pd.set(0, n);
    Mat scales = RandomMat(n, 20.f, 90.f);
    std::vector<Mat> out;
    std::string r = test_layer("Quantize", pd, {scales}, {in}, TestLayerFlags(), &out);
    if (!r.empty())
        return r;
    if (out[0].elemsize != 1)
        return "output is not int8";
    Dense x = to_dense(in), y = to_dense(out[0]);
    const size_t per = x.v.size() / groups_of(in);
    for (size_t i = 0; i < x.v.size(); i++)
    {
        const int g = (int)(i / per);
        int want = naive_round_clamp(x.v[i] * scales[n == 1 ? 0 : g]);
        if ((int)y.v[i] != want)
            return "at " + std::to_string(i) + ": got " + std::to_string((int)y.v[i]) + " want " + std::to_string(want);
    }
    return "";
}

TEST(Quantize, scales)
{
    reseed(1);
    for (bool per : {false, true})
    {
        KITE_EXPECT_LAYER_OK(run_quantize(RandomMat(17, -3.f, 3.f), per));
        KITE_EXPECT_LAYER_OK(run_quantize(RandomMat(9, 5, -3.f, 3.f), per));
        KITE_EXPECT_LAYER_OK(run_quantize(RandomMat(7, 6, 4, -3.f, 3.f), per));
        KITE_EXPECT_LAYER_OK(run_quantize(RandomMat(3, 4, 2, 5, -3.f, 3.f), per));
    }
}

TEST(Quantize, rounding_half_away_and_clamp)
{
    ParamDict pd;
    pd.set(0, 1);
    Mat one = FloatArrayMat({1.f});
    Mat in = FloatArrayMat({0.5f, -0.5f, 1.5f, -1.5f, 2.49f, -2.51f, 200.f, -200.f, 127.4f, -128.f});
    std::string why;
    std::vector<Mat> out = run_reference("Quantize", pd, {one}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    const signed char want[] = {1, -1, 2, -2, 2, -3, 127, -127, 127, -127};
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(((const signed char*)out[0].data)[i], want[i]) << i;
}

// int32 input from int values
static Mat int_mat(int w, int h, int c)
{
    Mat m = c > 0 ? Mat(w, h, c) : Mat(w, h);
    const int channels = c > 0 ? c : 1;
    for (int q = 0; q < channels; q++)
        for (int i = 0; i < w * h; i++)
            ((int*)m.data)[(c > 0 ? m.cstep * q : 0) + i] = rand_int(-5000, 5000);
    return m;
}

TEST(Dequantize, scale_and_bias)
{
    reseed(2);
    for (int c : {0, 3})
        for (bool per : {false, true})
            for (bool bias : {false, true})
            {
                Mat in = int_mat(6, 5, c);
                const int n = per ? groups_of(in) : 1;
                ParamDict pd;
                pd.set(0, n);
                pd.set(1, bias ? n : 0);
                Mat s = RandomMat(n, 0.001f, 0.01f), b = RandomMat(n);
                std::vector<Mat> w = {s};
                if (bias)
                    w.push_back(b);
                std::vector<Mat> out;
                KITE_EXPECT_LAYER_OK(test_layer("Dequantize", pd, w, {in}, TestLayerFlags(), &out));
                ASSERT_EQ(out.size(), 1u);
                const int channels = c > 0 ? c : 1;
                for (int q = 0; q < channels; q++)
                    for (int i = 0; i < 30; i++)
                    {
                        int g = c > 0 ? q : i / 6;
                        int x = ((const int*)in.data)[(c > 0 ? in.cstep * q : 0) + i];
                        float want = x * s[n == 1 ? 0 : g] + (bias ? b[n == 1 ? 0 : g] : 0.f);
                        float got = ((const float*)out[0].data)[(c > 0 ? out[0].cstep * q : 0) + i];
                        EXPECT_NEAR(got, want, 1e-4f * std::max(1.f, std::fabs(want)));
                    }
            }
}

TEST(Requantize, scales_bias_activation)
{
    reseed(3);
    const std::vector<std::vector<float> > params = {{}, {}, {0.1f}, {-0.5f, 0.7f}, {}, {}, {0.2f, 0.5f}};
    for (int act = 0; act <= 6; act++)
        for (bool per : {false, true})
        {
            Mat in = int_mat(5, 4, 3);
            const int n = per ? 3 : 1;
            ParamDict pd;
            pd.set(0, n);
            pd.set(1, 1);
            pd.set(2, n);
            pd.set(3, act);
            if (!params[act].empty())
                pd.set(4, FloatArrayMat(params[act]));
            Mat si = RandomMat(n, 0.0002f, 0.0006f), so = RandomMat(1, 30.f, 60.f), b = RandomMat(n);
            std::vector<Mat> out;
            KITE_EXPECT_LAYER_OK(test_layer("Requantize", pd, {si, so, b}, {in}, TestLayerFlags(), &out));
            ASSERT_EQ(out.size(), 1u);
            ASSERT_EQ(out[0].elemsize, 1u);
            for (int q = 0; q < 3; q++)
                for (int i = 0; i < 20; i++)
                {
                    int x = ((const int*)in.data)[in.cstep * q + i];
                    float v = naive_act(x * si[per ? q : 0] + b[per ? q : 0], act, params[act]);
                    int want = naive_round_clamp(v * so[0]);
                    int got = ((const signed char*)out[0].data)[out[0].cstep * q + i];
                    EXPECT_LE(std::abs(got - want), 1) << "act " << act << " q " << q << " i " << i;
                }
        }
}

TEST(Quantize, rejects_bad_sizes)
{
    std::string why;
    ParamDict pd;
    pd.set(0, 3);
    // 3 scales for 4 channels
    EXPECT_TRUE(run_reference("Quantize", pd, {RandomMat(3)}, {RandomMat(4, 4, 4)}, &why).empty());
    pd.set(0, 0);
    EXPECT_TRUE(run_reference("Quantize", pd, {RandomMat(1)}, {RandomMat(4, 4, 4)}, &why).empty());
}
