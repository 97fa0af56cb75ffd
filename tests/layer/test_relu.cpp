#include "testutil.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

static std::string check(const Mat& in, float slope)
{
    ParamDict pd;
    pd.set(0, slope);
    std::vector<Mat> out;
    std::string report = test_layer("ReLU", pd, {}, {in}, TestLayerFlags(), &out);
    if (!report.empty())
        return report;
    // the reference itself: y = x or slope * x
    Mat a = to_fp32_pack1(in), b = to_fp32_pack1(out[0]);
    const int channels = a.dims >= 3 ? a.c : 1;
    for (int q = 0; q < channels; q++)
    {
        const float* x = (const float*)a.data + (a.dims >= 3 ? a.cstep * q : 0);
        const float* y = (const float*)b.data + (b.dims >= 3 ? b.cstep * q : 0);
        for (size_t i = 0; i < (size_t)a.w * a.h * a.d; i++)
        {
            float want = x[i] > 0 ? x[i] : x[i] * slope;
            if (y[i] != want)
                return "ReLU reference wrong at " + std::to_string(i) + " seed=" + std::to_string(seed());
        }
    }
    return "";
}

TEST(ReLU, shapes_and_slopes)
{
    reseed(1);
    for (float slope : {0.f, 0.1f, -0.5f})
    {
        KITE_EXPECT_LAYER_OK(check(RandomMat(7), slope));
        KITE_EXPECT_LAYER_OK(check(RandomMat(24), slope));
        KITE_EXPECT_LAYER_OK(check(RandomMat(5, 8), slope));
        KITE_EXPECT_LAYER_OK(check(RandomMat(13, 11, 16), slope));
        KITE_EXPECT_LAYER_OK(check(RandomMat(3, 5, 3), slope));
        KITE_EXPECT_LAYER_OK(check(RandomMat(6, 5, 4, 8), slope));
    }
}

TEST(ReLU, default_slope_and_out_of_place)
{
    reseed(2);
    // no parameter: slope 0
    KITE_EXPECT_LAYER_OK(check(RandomMat(7, 5, 3), 0.f));
    ParamDict pd;
    std::string why;
    Mat in = RandomMat(9, 5);
    std::vector<Mat> out = run_reference("ReLU", pd, {}, {in}, &why);
    ASSERT_EQ(out.size(), 1u) << why;
    for (int i = 0; i < 45; i++)
        EXPECT_EQ(out[0][i], in[i] > 0 ? in[i] : 0.f);
    // the out-of-place path (Layer::forward) leaves the input alone
    Layer* l = make_layer("ReLU", BACKEND_CPU, 0, pd, {}, Option(), &why);
    ASSERT_NE(l, nullptr) << why;
    Mat copy = in.clone(), top;
    EXPECT_EQ(l->forward(copy, top, Option()), 0);
    EXPECT_EQ(compare_mat(copy, in, 0.f), "");
    EXPECT_EQ(compare_mat(top, out[0], 0.f), "");
    delete l;
}
