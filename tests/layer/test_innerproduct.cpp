#include "conv_naive.h"
#include "testutil.h"

#include <gtest/gtest.h>

using namespace kite;
using namespace kite::test;

// y[r][p] = act(bias[p] + sum_i x[r][i] * w[p][i]), computed here in double
static std::string run_ip(const Mat& in, int outc, int rows, int act, const std::vector<float>& ap, int int8_mode = 0,
                          bool zero_scale = false)
{
    Dense xd = to_dense(in);
    const int nin = (int)xd.v.size() / rows;
    ParamDict pd;
    pd.set(0, outc);
    pd.set(1, 1);
    pd.set(2, outc * nin);
    pd.set(9, act);
    if (!ap.empty())
        pd.set(10, FloatArrayMat(ap));
    Mat wt = int8_mode == 2 ? RandomS8Mat(outc * nin) : RandomMat(outc * nin);
    std::vector<Mat> weights = {wt, RandomMat(outc)};
    Mat wscales = RandomMat(outc, 50.f, 150.f), bscale = RandomMat(1, 60.f, 120.f);
    if (zero_scale)
        wscales[0] = 0.f;
    if (int8_mode)
    {
        pd.set(8, 1);
        weights.push_back(wscales);
        weights.push_back(bscale);
    }
    std::vector<Mat> out;
    TestLayerFlags flags;
    // the GPU rows' int8 arithmetic: integer sums (in work-group order on
    // OpenCL) and the reference's epilogue, so exactly its values
    if (int8_mode)
        flags.epsilon_gpu = 0.f;
    std::string r = test_layer("InnerProduct", pd, weights, {in}, flags, &out);
    if (!r.empty())
        return r;
    const Mat& y = out[0];
    const bool row_mode = in.dims == 2; // every dims-2 input here has w == num_input
    if (row_mode ? (y.dims != 2 || y.w != outc || y.h != rows) : (y.dims != 1 || y.w != outc))
        return "unexpected output shape " + shape_string(y);
    std::vector<float> w = mat_values(wt), b = mat_values(weights[1]);
    for (int row = 0; row < rows; row++)
        for (int p = 0; p < outc; p++)
        {
            double s = 0;
            for (int i = 0; i < nin; i++)
            {
                float x = xd.v[(size_t)row * nin + i];
                float wv = w[(size_t)p * nin + i];
                if (int8_mode)
                {
                    x = (float)naive_round_clamp(x * bscale[0]);
                    if (int8_mode == 1)
                        wv = (float)naive_round_clamp(wv * wscales[p]);
                }
                s += (double)x * wv;
            }
            if (int8_mode)
                s = wscales[p] == 0 ? 0 : s / (bscale[0] * wscales[p]);
            float want = naive_act((float)s + b[p], act, ap);
            float got = ((const float*)y.data)[(size_t)row * outc + p];
            if (std::fabs(got - want) > 1e-4f * std::max(1.f, std::fabs(want)))
                return "row " + std::to_string(row) + " out " + std::to_string(p) + ": got " + std::to_string(got) + " want " + std::to_string(want);
        }
    return "";
}

TEST(InnerProduct, flatten_any_dims)
{
    reseed(1);
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(13), 7, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(64), 16, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(5, 3, 4), 6, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(3, 2, 2, 5), 4, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(11, 1), 5, 1, 0, {})); // one row: output (num_output, 1)
}

TEST(InnerProduct, rows_are_vectors)
{
    reseed(2);
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(9, 4), 5, 4, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(16, 7), 8, 7, 1, {}));
}

// long inputs (the vector loop of the x86 matrix-vector product plus its
// tail), output counts that are not multiples of 4, many rows (the x86 GEMM:
// whole and partial panels of outputs and rows, K over one block, with and
// without an activation)
TEST(InnerProduct, large_and_odd)
{
    reseed(6);
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(133), 13, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(7, 5, 9), 38, 1, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(70, 37), 21, 37, 2, {0.1f}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(33, 9, -2.f, 2.f), 17, 9, 3, {-0.5f, 0.7f}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(300, 19), 70, 19, 0, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(40, 6, -2.f, 2.f), 64, 6, 1, {}));
}

TEST(InnerProduct, activations)
{
    reseed(3);
    const std::vector<std::vector<float> > params = {{}, {}, {0.1f}, {-0.5f, 0.7f}, {}, {}, {0.2f, 0.5f}};
    for (int act = 0; act <= 6; act++)
    {
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(12, -2.f, 2.f), 8, 1, act, params[act]));
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(10, 3, -2.f, 2.f), 6, 3, act, params[act]));
    }
}

TEST(InnerProduct, int8)
{
    reseed(4);
    for (int mode : {1, 2})
    {
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(24), 8, 1, 0, {}, mode));
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(4, 3, 5), 6, 1, 1, {}, mode));
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(12, 4), 5, 4, 0, {}, mode));
        // whole vector steps of every x86 kernel plus a tail, a partial group of four outputs
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(150), 13, 1, 1, {}, mode));
    }
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(67, 3), 9, 3, 0, {}, 2));
    // OpenCL's 64-item reductions: many strides of the items over
    // (channel block, position) pairs, a partial last channel block
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(9, 7, 37), 13, 1, 1, {}, 1));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(3001), 6, 1, 0, {}, 2));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(24), 8, 1, 0, {}, 1, true)); // weight scale 0: bias only
}

// more inputs than an OpenCL image is wide on most devices (16384 on PoCL,
// as VGG16's fc6 has 25088): the OpenCL driver's width-major weights
// (innerproduct_wide), fp32 and int8
TEST(InnerProduct, wider_than_an_image)
{
    reseed(7);
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(17, 31, 33), 6, 1, 1, {}));
    KITE_EXPECT_LAYER_OK(run_ip(RandomMat(16389), 5, 1, 0, {}));
    for (int mode : {1, 2})
        KITE_EXPECT_LAYER_OK(run_ip(RandomMat(17, 31, 33), 7, 1, 0, {}, mode));
}

TEST(InnerProduct, rejects_bad_params_and_shapes)
{
    reseed(5);
    std::string why;
    ParamDict pd;
    pd.set(0, 4);
    pd.set(2, 42); // not a multiple of 4
    EXPECT_TRUE(run_reference("InnerProduct", pd, {RandomMat(42)}, {RandomMat(10)}, &why).empty());
    pd.set(2, 40);
    EXPECT_TRUE(run_reference("InnerProduct", pd, {RandomMat(40)}, {RandomMat(11)}, &why).empty());
    EXPECT_FALSE(run_reference("InnerProduct", pd, {RandomMat(40)}, {RandomMat(10)}, &why).empty()) << why;
    pd.set(9, 9); // unknown activation
    EXPECT_TRUE(run_reference("InnerProduct", pd, {RandomMat(40)}, {RandomMat(10)}, &why).empty());
}
