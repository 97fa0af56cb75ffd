// Light mode: the CPU drivers of the weight-heavy layers release their loaded
// weights once they hold their own packed or transformed copy (as ncnn's
// create_pipeline does), which keeps a net's resident memory at about one copy
// of the weights. This checks, on every CPU row this machine runs, that
//   - the loaded weights are in fact released (the memory claim),
//   - forward still matches the reference,
//   - the reference fallback (the base class's forward, which the drivers
//     call for inputs they have no kernel for) still works: it rebuilds the
//     weights from the packed copy (loaded_weights),
//   - destroy_pipeline + create_pipeline again, with light mode off and then
//     on again, gives the same answers,
// and that a Net in light mode gives a Net without it's outputs, over two
// Extractors and after reloading the weights.
#include "testutil.h"

#include "convolution.h"
#include "convolutiondepthwise.h"
#include "cpu.h"
#include "deconvolution.h"
#include "gemm.h"
#include "innerproduct.h"
#include "layer.h"
#include "modelbin.h"
#include "multiheadattention.h"
#include "net.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

using namespace kite;
using namespace kite::test;

namespace {

struct ReleaseCase
{
    const char* type;
    ParamDict pd;
    std::vector<Mat> weights;
    std::vector<Mat> inputs;
    std::vector<Mat> top_shapes;
    // whether the layer holds no loaded weights (they were released)
    std::function<bool(const Layer*)> released;
    // the reference's forward on the driver object (its rebuilt weights)
    std::function<int(const Layer*, const std::vector<Mat>&, std::vector<Mat>&, const Option&)> reference_forward;
};

Option light_option(bool lightmode)
{
    Option opt;
    opt.num_threads = 1;
    opt.use_packing_layout = true;
    opt.use_fp16_storage = false;
    opt.use_fp16_arithmetic = false;
    opt.use_bf16_storage = false;
    opt.lightmode = lightmode;
    return opt;
}

std::string compare_all(const std::vector<Mat>& out, const std::vector<Mat>& ref, float eps)
{
    if (out.size() != ref.size())
        return "output count differs";
    for (size_t i = 0; i < out.size(); i++)
    {
        std::string c = compare_mat(to_fp32_pack1(out[i]), ref[i], eps);
        if (!c.empty())
            return "output " + std::to_string(i) + ": " + c;
    }
    return "";
}

// every check above on one CPU row; "" or what failed
std::string check_row(const ReleaseCase& rc, int isa, const std::vector<Mat>& ref, bool expect_release)
{
    const std::string where = std::string(rc.type) + " [" + cpu_isa_name(isa) + "] seed=" + std::to_string(seed()) + ": ";
    Option opt = light_option(true);
    std::string why;
    bool declined = false;
    Layer* l = make_layer(rc.type, BACKEND_CPU, isa, rc.pd, rc.weights, opt, &why, &declined, &rc.top_shapes);
    if (!l)
        return declined ? "" : where + why;
    std::string err;
    auto run = [&](const char* step, const Option& o) {
        std::vector<Mat> out(ref.size());
        int ret = run_layer_forward(l, rc.inputs, out, o);
        if (ret != 0)
            return where + step + ": forward returned " + std::to_string(ret);
        std::string c = compare_all(out, ref, 1e-3f);
        return c.empty() ? c : where + step + ": " + c;
    };
    auto run_reference_path = [&](const char* step, const Option& o) {
        std::vector<Mat> out(ref.size());
        int ret = rc.reference_forward(l, rc.inputs, out, o);
        if (ret != 0)
            return where + step + ": the reference forward returned " + std::to_string(ret);
        std::string c = compare_all(out, ref, 1e-3f);
        return c.empty() ? c : where + step + ": " + c;
    };
    if (expect_release && !rc.released(l))
        err = where + "light mode kept the loaded weights beside the packed copy";
    if (err.empty())
        err = run("light mode", opt);
    if (err.empty())
        err = run_reference_path("light mode, reference fallback", opt);
    // again without light mode: the weights come back
    Option keep = light_option(false);
    if (err.empty())
    {
        l->destroy_pipeline(opt);
        if (l->create_pipeline(keep) != 0)
            err = where + "second create_pipeline (light mode off) failed";
        else if (rc.released(l))
            err = where + "light mode off, yet the loaded weights are gone";
    }
    if (err.empty())
        err = run("second create_pipeline, light mode off", keep);
    if (err.empty())
        err = run_reference_path("second create_pipeline, reference", keep);
    // and in light mode once more
    if (err.empty())
    {
        l->destroy_pipeline(keep);
        if (l->create_pipeline(opt) != 0)
            err = where + "third create_pipeline (light mode) failed";
        else if (expect_release && !rc.released(l))
            err = where + "third create_pipeline kept the loaded weights";
    }
    if (err.empty())
        err = run("third create_pipeline, light mode", opt);
    if (err.empty())
        err = run_reference_path("third create_pipeline, reference fallback", opt);
    l->destroy_pipeline(opt);
    delete l;
    return err;
}

// every CPU row of the type this machine runs
void check_case(const ReleaseCase& rc, bool expect_release = true)
{
    std::string why;
    std::vector<Mat> ref = run_reference(rc.type, rc.pd, rc.weights, rc.inputs, &why);
    ASSERT_FALSE(ref.empty()) << rc.type << ": reference failed: " << why;
    int count = 0;
    const LayerRegistryEntry* rows = layer_registry(&count);
    int tested = 0;
    for (int r = 0; r < count; r++)
    {
        const LayerRegistryEntry& e = rows[r];
        if (std::string(e.type) != rc.type || e.backend != BACKEND_CPU || e.isa == CPU_ISA_NONE || !cpu_support_isa(e.isa))
            continue;
        std::string err = check_row(rc, e.isa, ref, expect_release);
        EXPECT_TRUE(err.empty()) << err;
        tested++;
    }
    EXPECT_GT(tested, 0) << rc.type << ": no optimised CPU row to test";
}

template<class T>
std::function<bool(const Layer*)> weight_data_released()
{
    return [](const Layer* l) { return static_cast<const T*>(l)->weight_data.empty(); };
}

ReleaseCase conv_case(int w, int h, int c, int outc, int k, int stride, int group = 1)
{
    ReleaseCase rc;
    rc.type = group == 1 ? "Convolution" : "ConvolutionDepthWise";
    const int wsize = outc * (c / group) * k * k;
    rc.pd.set(Convolution::PARAM_NUM_OUTPUT, outc);
    rc.pd.set(Convolution::PARAM_KERNEL_W, k);
    rc.pd.set(Convolution::PARAM_STRIDE_W, stride);
    rc.pd.set(Convolution::PARAM_PAD_LEFT, k / 2);
    rc.pd.set(Convolution::PARAM_BIAS_TERM, 1);
    rc.pd.set(Convolution::PARAM_WEIGHT_DATA_SIZE, wsize);
    if (group != 1)
        rc.pd.set(Convolution::PARAM_GROUP, group);
    rc.weights = {RandomMat(wsize), RandomMat(outc)};
    rc.inputs = {RandomMat(w, h, c)};
    if (group == 1)
    {
        rc.released = weight_data_released<Convolution>();
        rc.reference_forward = [](const Layer* l, const std::vector<Mat>& in, std::vector<Mat>& out, const Option& o) {
            return static_cast<const Convolution*>(l)->Convolution::forward(in[0], out[0], o);
        };
    }
    else
    {
        rc.released = weight_data_released<ConvolutionDepthWise>();
        rc.reference_forward = [](const Layer* l, const std::vector<Mat>& in, std::vector<Mat>& out, const Option& o) {
            return static_cast<const ConvolutionDepthWise*>(l)->ConvolutionDepthWise::forward(in[0], out[0], o);
        };
    }
    return rc;
}

} // namespace

// 3x3 stride 1: Winograd; light mode keeps only the transformed weights
// (input channels by 4), so the reference fallback rebuilds them through the
// inverse transform (to the float rounding)
TEST(WeightRelease, ConvolutionWinograd)
{
    reseed(101);
    check_case(conv_case(12, 11, 8, 16, 3, 1)); // F(6,3) without a shape hint (narrow)
    check_case(conv_case(3, 4, 16, 24, 3, 1)); // a map with fewer tiles than the GEMM threshold
    check_case(conv_case(8, 6, 136, 130, 3, 1)); // wide: F(4,3)
    ReleaseCase hinted = conv_case(7, 7, 32, 40, 3, 1);
    hinted.top_shapes = {Mat(7, 7, 40)}; // the hint: 7x7 gives F(2,3)
    check_case(hinted);
    check_case(conv_case(13, 10, 12, 9, 3, 1)); // 12 inputs (by 4), 9 outputs (no output pack)
    check_case(conv_case(13, 10, 10, 9, 3, 1)); // 10 inputs: the GEMM copy stays, the loaded weights go
}

TEST(WeightRelease, ConvolutionGemm)
{
    reseed(102);
    check_case(conv_case(11, 9, 6, 10, 3, 2));
    check_case(conv_case(9, 8, 8, 12, 1, 1));
    check_case(conv_case(10, 7, 5, 7, 5, 1));
}

TEST(WeightRelease, GroupedConvolution)
{
    reseed(103);
    check_case(conv_case(10, 9, 16, 16, 3, 1, 2)); // each group Winograd
    check_case(conv_case(9, 9, 12, 6, 1, 1, 3));   // each group a 1x1 GEMM
    check_case(conv_case(11, 7, 32, 32, 3, 2, 4)); // groups of 8: the direct kernel's copy alone
    check_case(conv_case(9, 6, 12, 12, 3, 1, 3));  // groups of 4
}

TEST(WeightRelease, InnerProduct)
{
    reseed(104);
    for (int rows : {1, 2, 5})
    {
        ReleaseCase rc;
        rc.type = "InnerProduct";
        const int num_input = 37, num_output = 19;
        rc.pd.set(InnerProduct::PARAM_NUM_OUTPUT, num_output);
        rc.pd.set(InnerProduct::PARAM_BIAS_TERM, 1);
        rc.pd.set(InnerProduct::PARAM_WEIGHT_DATA_SIZE, num_input * num_output);
        rc.weights = {RandomMat(num_input * num_output), RandomMat(num_output)};
        rc.inputs = {rows == 1 ? RandomMat(num_input) : RandomMat(num_input, rows)};
        rc.released = weight_data_released<InnerProduct>();
        rc.reference_forward = [](const Layer* l, const std::vector<Mat>& in, std::vector<Mat>& out, const Option& o) {
            return static_cast<const InnerProduct*>(l)->InnerProduct::forward(in[0], out[0], o);
        };
#if defined(__ARM_NEON)
        const bool expect = false; // NEON's matrix-vector path reads the loaded rows
#else
        const bool expect = true;
#endif
        check_case(rc, expect);
    }
}

TEST(WeightRelease, Gemm)
{
    reseed(105);
    for (int transB : {0, 1})
    {
        ReleaseCase rc;
        rc.type = "Gemm";
        const int M = 7, K = 13, N = 9;
        rc.pd.set(Gemm::PARAM_TRANS_B, transB);
        rc.pd.set(Gemm::PARAM_CONSTANT_B, 1);
        rc.pd.set(Gemm::PARAM_CONSTANT_N, N);
        rc.pd.set(Gemm::PARAM_CONSTANT_K, K);
        rc.weights = {transB ? RandomMat(K, N) : RandomMat(N, K)};
        rc.inputs = {RandomMat(K, M)};
        rc.released = [](const Layer* l) { return static_cast<const Gemm*>(l)->B_data.empty(); };
        rc.reference_forward = [](const Layer* l, const std::vector<Mat>& in, std::vector<Mat>& out, const Option& o) {
            return static_cast<const Gemm*>(l)->Gemm::forward(in, out, o);
        };
        check_case(rc);
    }
}

TEST(WeightRelease, MultiHeadAttention)
{
    reseed(106);
    ReleaseCase rc;
    rc.type = "MultiHeadAttention";
    const int E = 16, L = 5;
    rc.pd.set(MultiHeadAttention::PARAM_EMBED_DIM, E);
    rc.pd.set(MultiHeadAttention::PARAM_NUM_HEADS, 2);
    rc.pd.set(MultiHeadAttention::PARAM_WEIGHT_DATA_SIZE, E * E);
    rc.weights = {RandomMat(E * E), RandomMat(E), RandomMat(E * E), RandomMat(E), RandomMat(E * E), RandomMat(E),
                  RandomMat(E * E), RandomMat(E)};
    rc.inputs = {RandomMat(E, L)};
    rc.released = [](const Layer* l) {
        const MultiHeadAttention* m = static_cast<const MultiHeadAttention*>(l);
        return m->q_weight_data.empty() && m->k_weight_data.empty() && m->v_weight_data.empty() && m->out_weight_data.empty();
    };
    rc.reference_forward = [](const Layer* l, const std::vector<Mat>& in, std::vector<Mat>& out, const Option& o) {
        return static_cast<const MultiHeadAttention*>(l)->MultiHeadAttention::forward(in, out, o);
    };
    check_case(rc);
}

TEST(WeightRelease, Deconvolution)
{
    reseed(107);
    ReleaseCase rc;
    rc.type = "Deconvolution";
    const int c = 5, outc = 6, k = 3;
    rc.pd.set(Deconvolution::PARAM_NUM_OUTPUT, outc);
    rc.pd.set(Deconvolution::PARAM_KERNEL_W, k);
    rc.pd.set(Deconvolution::PARAM_STRIDE_W, 2);
    rc.pd.set(Deconvolution::PARAM_BIAS_TERM, 1);
    rc.pd.set(Deconvolution::PARAM_WEIGHT_DATA_SIZE, outc * c * k * k);
    rc.weights = {RandomMat(outc * c * k * k), RandomMat(outc)};
    rc.inputs = {RandomMat(6, 5, c)};
    rc.released = weight_data_released<Deconvolution>();
    rc.reference_forward = [](const Layer* l, const std::vector<Mat>& in, std::vector<Mat>& out, const Option& o) {
        // the reference's kernel on an elempack-1 input: what the driver's
        // run_fp32 hands its base for shapes it has no GEMM for
        return static_cast<const Deconvolution*>(l)->Deconvolution::forward(in[0], out[0], o);
    };
    check_case(rc);
}

// A Net in light mode against one without: same outputs, two Extractors,
// weights reloaded
TEST(WeightRelease, NetLightMode)
{
    reseed(108);
    const char* param = "7767517\n"
                        "5 5\n"
                        "Input in 0 1 in 0=10 1=9 2=8\n"
                        "Convolution c3 1 1 in a 0=16 1=3 4=1 5=1 6=1152 9=1\n"
                        "Convolution c1 1 1 a b 0=12 1=1 5=1 6=192\n"
                        "ConvolutionDepthWise g 1 1 b c 0=12 1=3 4=1 5=1 6=432 7=3\n"
                        "InnerProduct fc 1 1 c out 0=10 1=1 2=10800\n";
    // the weights: each buffer a zero fp32 tag then values
    std::vector<unsigned char> bin;
    auto add = [&](int n, bool tag) {
        if (tag)
        {
            const unsigned int t = 0;
            bin.insert(bin.end(), (const unsigned char*)&t, (const unsigned char*)&t + 4);
        }
        Mat m = RandomMat(n);
        bin.insert(bin.end(), (const unsigned char*)m.data, (const unsigned char*)m.data + (size_t)n * 4);
    };
    add(1152, true);
    add(16, false);
    add(192, true);
    add(12, false);
    add(432, true);
    add(12, false);
    add(10800, true);
    add(10, false);
    Mat in = RandomMat(10, 9, 8);

    Net keep;
    keep.opt = light_option(false);
    ASSERT_EQ(keep.load_param_mem(param), 0);
    ASSERT_EQ(keep.load_model(bin.data(), bin.size()), bin.size());
    Mat ref;
    {
        Extractor ex = keep.create_extractor();
        ASSERT_EQ(ex.input("in", in), 0);
        ASSERT_EQ(ex.extract("out", ref), 0);
    }

    Net light;
    light.opt = light_option(true);
    light.opt.num_threads = 2;
    ASSERT_EQ(light.load_param_mem(param), 0);
    for (int load = 0; load < 2; load++)
    {
        ASSERT_EQ(light.load_model(bin.data(), bin.size()), bin.size());
        for (int e = 0; e < 2; e++)
        {
            Extractor ex = light.create_extractor();
            Mat out;
            ASSERT_EQ(ex.input("in", in), 0);
            ASSERT_EQ(ex.extract("out", out), 0);
            std::string c = compare_mat(to_fp32_pack1(out), to_fp32_pack1(ref), 1e-3f);
            EXPECT_TRUE(c.empty()) << "load " << load << ", extractor " << e << ": " << c << " (seed " << seed() << ")";
        }
    }
}

// Weights this layer alone holds (loaded from a file): InnerProduct gives the
// pages of the rows it has packed back to the OS as it goes (several 4 MB
// steps here); the answers must not change
TEST(WeightRelease, NetLightModeFromFile)
{
    reseed(109);
    const int K = 4096, M = 520;
    const std::string param = "7767517\n"
                              "3 3\n"
                              "Input in 0 1 in 0=" + std::to_string(K) + "\n"
                              "InnerProduct fc1 1 1 in a 0=" + std::to_string(M) + " 1=1 2=" + std::to_string(K * M) + "\n"
                              "InnerProduct fc2 1 1 a out 0=7 1=0 2=" + std::to_string(M * 7) + "\n";
    std::vector<unsigned char> bin;
    auto add = [&](int n, bool tag) {
        if (tag)
        {
            const unsigned int t = 0;
            bin.insert(bin.end(), (const unsigned char*)&t, (const unsigned char*)&t + 4);
        }
        Mat m = RandomMat(n);
        bin.insert(bin.end(), (const unsigned char*)m.data, (const unsigned char*)m.data + (size_t)n * 4);
    };
    add(K * M, true);
    add(M, false);
    add(M * 7, true);
    const std::string path = std::string(::testing::TempDir()) + "kite_weight_release_" + std::to_string(seed()) + ".bin";
    FILE* fp = fopen(path.c_str(), "wb");
    ASSERT_TRUE(fp != nullptr) << path;
    ASSERT_EQ(fwrite(bin.data(), 1, bin.size(), fp), bin.size());
    fclose(fp);
    Mat in = RandomMat(K);

    Net keep;
    keep.opt = light_option(false);
    ASSERT_EQ(keep.load_param_mem(param.c_str()), 0);
    ASSERT_EQ(keep.load_model(path.c_str()), 0);
    Mat ref;
    {
        Extractor ex = keep.create_extractor();
        ASSERT_EQ(ex.input("in", in), 0);
        ASSERT_EQ(ex.extract("out", ref), 0);
    }
    Net light;
    light.opt = light_option(true);
    ASSERT_EQ(light.load_param_mem(param.c_str()), 0);
    for (int load = 0; load < 2; load++)
    {
        ASSERT_EQ(light.load_model(path.c_str()), 0);
        Extractor ex = light.create_extractor();
        Mat out;
        ASSERT_EQ(ex.input("in", in), 0);
        ASSERT_EQ(ex.extract("out", out), 0);
        std::string c = compare_mat(to_fp32_pack1(out), to_fp32_pack1(ref), 1e-3f);
        EXPECT_TRUE(c.empty()) << "load " << load << ": " << c << " (seed " << seed() << ")";
    }
    remove(path.c_str());
}
