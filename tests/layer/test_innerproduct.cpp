#include "conv_naive.h"
#include "cpu.h"
#include "innerproduct.h"
#include "layer.h"
#include "testutil.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

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
    // Vulkan's int8gemv in both variants: packed integer dot products
    // (int8gemv_dot4, where the device has them; lavapipe's default) and the
    // portable one; the kernel path says which ran. Inputs that fp16 holds
    // exactly (the fp16-storage rows quantize the same values)
    auto fp16_exact = [](Mat m) {
        for (size_t i = 0; i < m.total(); i++)
            ((float*)m.data)[i] = float16_to_float32(float32_to_float16(((float*)m.data)[i]));
        return m;
    };
    for (const char* dot : {"0", "1"})
    {
        SCOPED_TRACE(std::string("KITE_VULKAN_INT8_DOT=") + dot);
        setenv("KITE_VULKAN_INT8_DOT", dot, 1);
        KITE_EXPECT_LAYER_OK(run_ip(fp16_exact(RandomMat(67, 3)), 9, 3, 0, {}, 2));
        KITE_EXPECT_LAYER_OK(run_ip(fp16_exact(RandomMat(9, 7, 37)), 13, 1, 1, {}, 1));
        KITE_EXPECT_LAYER_OK(run_ip(fp16_exact(RandomMat(150)), 13, 1, 1, {}, 1));
        ParamDict pd;
        pd.set(0, 5);
        pd.set(1, 1);
        pd.set(2, 5 * 12);
        pd.set(8, 1);
        const std::string path = gpu_kernel_path("InnerProduct", BACKEND_VULKAN, pd,
                                                 {RandomS8Mat(5 * 12), RandomMat(5), RandomMat(5, 50.f, 150.f), RandomMat(1, 60.f, 120.f)});
        if (path != "-")
            EXPECT_TRUE(dot[0] == '0' ? path == "int8-gemv" : path == "int8-dot4" || path == "int8-gemv") << path;
    }
    unsetenv("KITE_VULKAN_INT8_DOT");
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

// fp16 weights (Option::use_fp16_weights, and use_fp16_storage, which implies
// them): every optimised CPU row of this machine, 1 and 2 threads, light mode
// on and off, one vector, a few rows, many rows (the block-converted GEMM),
// odd sizes. Where a row takes the fp16 path ("gemv-fp16": the ISA levels
// that convert fp16 in one instruction) the result must match the product
// with fp16-rounded weights; elsewhere the fp32 product. Also: light mode
// releases the fp32 weights, the reference fallback and a second
// create_pipeline (fp32) rebuild them from the fp16 panels.
static std::string check_fp16_weights(int isa, int nin, int outc, int rows, int act, bool storage, int threads, bool light,
                                      bool* took_fp16)
{
    const std::string where = std::string("[") + cpu_isa_name(isa) + "] nin=" + std::to_string(nin) + " outc="
                              + std::to_string(outc) + " rows=" + std::to_string(rows) + " act=" + std::to_string(act)
                              + (storage ? " use_fp16_storage" : " use_fp16_weights") + " threads=" + std::to_string(threads)
                              + " lightmode=" + std::to_string(light) + " seed=" + std::to_string(seed()) + ": ";
    ParamDict pd;
    pd.set(InnerProduct::PARAM_NUM_OUTPUT, outc);
    pd.set(InnerProduct::PARAM_BIAS_TERM, 1);
    pd.set(InnerProduct::PARAM_WEIGHT_DATA_SIZE, outc * nin);
    pd.set(InnerProduct::PARAM_ACTIVATION_TYPE, act);
    const std::vector<Mat> weights = {RandomMat(outc * nin), RandomMat(outc)};
    const Mat in = rows == 1 ? RandomMat(nin) : RandomMat(nin, rows);
    Option opt;
    opt.num_threads = threads;
    opt.lightmode = light;
    opt.use_packing_layout = false;
    opt.use_fp16_storage = storage;
    opt.use_fp16_weights = !storage;
    std::string why;
    Layer* l = make_layer("InnerProduct", BACKEND_CPU, isa, pd, weights, opt, &why);
    if (!l)
        return where + why;
    const char* path = l->kernel_path();
    const bool fp16 = path && std::strcmp(path, "gemv-fp16") == 0;
    *took_fp16 = *took_fp16 || fp16;
    // the product in double from the weights a step should use: the fp16
    // path's rounded ones; the reference fallback and an fp32 pipeline
    // after it read loaded_weights(): the loaded fp32 weights, or, once light
    // mode released them, the rounded ones rebuilt from the fp16 panels
    const std::vector<float> w32 = mat_values(weights[0]), b = mat_values(weights[1]), x = to_dense(in).v;
    std::vector<float> w16 = w32;
    for (float& v : w16)
        v = float16_to_float32(float32_to_float16(v));
    auto check = [&](const Mat& y, const char* step, bool rounded) -> std::string {
        const std::vector<float>& w = rounded ? w16 : w32;
        if (y.empty() || y.w != outc || (rows > 1 && y.h != rows))
            return where + step + ": unexpected output shape " + shape_string(y);
        for (int r = 0; r < rows; r++)
            for (int p = 0; p < outc; p++)
            {
                double s = b[p];
                for (int i = 0; i < nin; i++)
                    s += (double)x[(size_t)r * nin + i] * w[(size_t)p * nin + i];
                const float want = naive_act((float)s, act, {});
                const float got = ((const float*)y.data)[(size_t)r * outc + p];
                if (!(std::fabs(got - want) <= 1e-4f * std::max(1.f, std::fabs(want))))
                    return where + step + ": row " + std::to_string(r) + " out " + std::to_string(p) + ": got "
                           + std::to_string(got) + " want " + std::to_string(want) + " (path "
                           + (path ? path : "none") + ")";
            }
        return "";
    };
    std::string err;
    std::vector<Mat> out(1);
    if (run_layer_forward(l, {in}, out, opt) != 0)
        err = where + "forward failed";
    if (err.empty())
        err = check(out[0], "forward", fp16);
    if (err.empty() && fp16 && light && !static_cast<const InnerProduct*>(l)->weight_data.empty())
        err = where + "light mode kept the fp32 weights beside the fp16 ones";
    if (err.empty() && fp16 && !light && static_cast<const InnerProduct*>(l)->weight_data.empty())
        err = where + "the fp32 weights went without light mode";
    if (err.empty())
    {
        Mat y;
        if (static_cast<const InnerProduct*>(l)->InnerProduct::forward(in, y, opt) != 0)
            err = where + "reference fallback failed";
        else
            err = check(y, "reference fallback", fp16 && light);
    }
    if (err.empty())
    {
        // again in fp32: the (fp16-rounded, if fp16) weights come back
        Option o32 = opt;
        o32.use_fp16_storage = false;
        o32.use_fp16_weights = false;
        if (l->create_pipeline(o32) != 0)
            err = where + "second create_pipeline (fp32) failed";
        else if (l->kernel_path() && std::strcmp(l->kernel_path(), "gemv-fp16") == 0)
            err = where + "fp32 create_pipeline still on gemv-fp16";
        else
        {
            std::vector<Mat> out2(1);
            if (run_layer_forward(l, {in}, out2, o32) != 0)
                err = where + "fp32 forward after the fp16 pipeline failed";
            else
                err = check(out2[0], "fp32 after fp16", fp16 && light);
        }
    }
    l->destroy_pipeline(opt);
    delete l;
    return err;
}

TEST(InnerProduct, fp16_weights)
{
    reseed(8);
    int count = 0;
    const LayerRegistryEntry* table = layer_registry(&count);
    bool took_fp16 = false;
    int tested = 0;
    struct Shape
    {
        int nin, outc, rows, act;
    };
    // one vector (panels of 2 vectors of outputs: whole, partial, 1 output),
    // 2 rows, the GEMM's rows >= 4 with one and several converted blocks
    // (sharing one packing of the rows: 3001 inputs, 3 blocks of outputs at
    // 16 and 32 a panel, 33 rows over several column panels, a partial one)
    const Shape shapes[] = {{133, 13, 1, 1}, {37, 70, 1, 0}, {1, 1, 1, 0}, {300, 33, 2, 1}, {70, 37, 5, 0},
                            {19, 65, 9, 1},  {4099, 45, 4, 0}, {1000, 3, 1, 0}, {3001, 70, 33, 1}};
    for (int r = 0; r < count; r++)
    {
        const LayerRegistryEntry& e = table[r];
        if (std::string(e.type) != "InnerProduct" || e.backend != BACKEND_CPU || e.isa == CPU_ISA_NONE || !cpu_support_isa(e.isa))
            continue;
        tested++;
        for (const Shape& s : shapes)
            for (bool storage : {false, true})
                for (int threads : {1, 2})
                    for (bool light : {true, false})
                    {
                        std::string err = check_fp16_weights(e.isa, s.nin, s.outc, s.rows, s.act, storage, threads, light, &took_fp16);
                        EXPECT_TRUE(err.empty()) << err;
                        if (!err.empty())
                            return;
                    }
    }
    EXPECT_GT(tested, 0) << "no optimised CPU row of InnerProduct";
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    // F16C (AVX2 rows) / aarch64 NEON: some row must have taken the fp16 path
    const bool hw = cpu_support_isa(CPU_ISA_AVX2) || cpu_support_isa(CPU_ISA_NEON);
    if (hw)
        EXPECT_TRUE(took_fp16) << "no CPU row took the fp16-weight path (gemv-fp16)";
#endif
}
