// Folded activations (cl_layout.h): a blob whose natural channel-major image
// is over the device's 2D image limit lives folded on the device instead of
// sending its layers to the CPU. The limit is forced down to 32 x 32 texels
// here (cl::set_image_limit_for_tests), so that PoCL exercises the folded
// path at small shapes: upload/download round trips for dims 1-4, elempack
// 1 and 4, fp32 and fp16 storage; a blob even the folded image cannot hold
// (KITE_GPU_CANNOT_HOLD, never a failed forward); and an SSD-head-like graph
// (Permute, Flatten, Concat on both axes, Reshape, Softmax, Slice, Crop,
// PriorBox) against the CPU, whose placement report must show every layer on
// OpenCL but Input, a layer without an OpenCL row (AbsVal) and one whose
// driver does not address folded inputs (Eltwise, which runs on the CPU,
// correctly); ReLU and Sigmoid (the activation kernel) run folded blobs.
#include "testutil.h"

#include "gpu/cpu_fallback.h"
#include "gpu/opencl/cl_layout.h"
#include "gpu/opencl/cl_runtime.h"
#include "layer.h"
#include "net.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

const int kLimit = 32;

cl::Context* device()
{
    Option opt;
    opt.use_opencl = true;
    if (!gpu_backend_usable(BACKEND_OPENCL, opt))
        return nullptr;
    return cl::Context::get(0);
}

// max |a - b| relative to b's range, a and b fp32 elempack 1 of one shape
std::string compare(const Mat& a0, const Mat& b0, float tol, const std::string& what)
{
    Mat a = to_fp32_pack1(a0), b = to_fp32_pack1(b0);
    if (a.dims != b.dims || a.w != b.w || a.h != b.h || a.d != b.d || a.c != b.c)
        return what + ": shape " + shape_string(a) + " vs " + shape_string(b);
    float lo = 0.f, hi = 0.f, worst = 0.f;
    for (int q = 0; q < b.c; q++)
    {
        const float* pa = a.channel(q);
        const float* pb = b.channel(q);
        for (int i = 0; i < b.w * b.h * b.d; i++)
        {
            lo = std::fmin(lo, pb[i]);
            hi = std::fmax(hi, pb[i]);
            if (!(std::fabs(pa[i] - pb[i]) <= worst)) // NaN counts
                worst = std::isnan(pa[i]) ? 1e30f : std::fabs(pa[i] - pb[i]);
        }
    }
    const float range = std::fmax(hi - lo, 1e-6f);
    if (worst > tol * range)
        return what + ": max diff " + std::to_string(worst) + " over range " + std::to_string(range) + " (seed " +
               std::to_string(seed()) + ")";
    return "";
}

// element c, j (j = y * W + x of the channel-major view) of an elempack-1 Mat
float at(const Mat& m, int c, int j)
{
    if (m.dims == 1)
        return ((const float*)m.data)[c];
    if (m.dims == 2)
        return m.row(c)[j];
    return m.channel(c)[j];
}

// the raw texels of a float image, checked against cl_layout.h's formula
// independently of the kernels (a round trip alone cannot see a permutation
// that upload and download share)
std::string check_texels(cl::Session& s, const cl::ClBlob* b, const Mat& m)
{
    const int F = b->image.width, IH = b->image.height, NIW = b->W * cl::div4(b->C);
    std::vector<float> px((size_t)F * IH * 4);
    size_t origin[3] = {0, 0, 0}, region[3] = {(size_t)F, (size_t)IH, 1};
    if (cl::api()->clFinish(s.queue) != CL_SUCCESS ||
        cl::api()->clEnqueueReadImage(s.queue, b->image.mem, CL_TRUE, origin, region, 0, 0, px.data(), 0, nullptr, nullptr) != CL_SUCCESS)
        return "reading the image failed";
    for (long t = 0; t < (long)NIW * b->H; t++)
    {
        const int x = (int)(t % NIW), y = (int)(t / NIW), w = x % b->W, cb = x / b->W;
        for (int k = 0; k < 4; k++)
        {
            const int c = cb * 4 + k;
            const float want = c < b->C ? at(m, c, y * b->W + w) : 0.f;
            const float got = px[(size_t)t * 4 + k]; // texel t at (t % F, t / F): raster position t
            if (got != want)
                return "texel " + std::to_string(t) + " lane " + std::to_string(k) + ": " + std::to_string(got) +
                       " expected " + std::to_string(want);
        }
    }
    return "";
}

class OpenCLFold : public ::testing::Test
{
protected:
    void SetUp() override { cl::set_image_limit_for_tests(kLimit); }
    void TearDown() override { cl::set_image_limit_for_tests(0); }
};

TEST_F(OpenCLFold, UploadDownloadRoundTrip)
{
    reseed(17);
    cl::Context* ctx = device();
    if (!ctx)
        GTEST_SKIP() << "no usable OpenCL device";
    struct Case
    {
        Mat m;
        bool folded;
    };
    // natural images: dims 1 w <= 128, dims 2 div4(h) <= 32 and w <= 32, ...
    std::vector<Case> cases = {
        {RandomMat(151), true},          // 38 texels in a row: 32 + 6
        {RandomMat(4 * 37), true},       // 37 texels
        {RandomMat(125), false},         // 32 texels: natural
        {RandomMat(45, 6), true},        // [2, 45]: too tall
        {RandomMat(7, 131), true},       // [33, 7]: too wide
        {RandomMat(9, 5, 16), true},     // [36, 5]
        {RandomMat(3, 40, 5), true},     // [6, 40]
        {RandomMat(3, 4, 5, 7), true},   // [6, 20 * ...]: H = d*h = 20, W*CB = 6: natural
        {RandomMat(11, 3, 2, 13), true}, // [44, 6]
    };
    cases[7].folded = false;
    for (int half = 0; half < 2; half++)
        for (int pack = 1; pack <= 4; pack += 3)
            for (const Case& c : cases)
            {
                Option opt;
                opt.use_opencl = true;
                opt.use_fp16_storage = half != 0;
                cl::Session s(ctx, opt);
                Mat in = c.m;
                const int axis_len = in.dims == 1 ? in.w : in.dims == 2 ? in.h : in.c;
                if (pack == 4 && axis_len % 4 == 0)
                {
                    Mat p;
                    convert_packing(c.m, p, 4, opt);
                    in = p;
                }
                const std::string what = "shape " + shape_string(c.m) + " elempack " + std::to_string(in.elempack) +
                                         (half ? " fp16" : " fp32");
                GpuBlobPtr g;
                ASSERT_EQ(s.upload(in, g, nullptr, opt), 0) << what;
                const cl::ClBlob* b = static_cast<const cl::ClBlob*>(g.get());
                EXPECT_EQ(cl::is_folded(b), c.folded) << what << ": image " << b->image.width << " x " << b->image.height;
                EXPECT_LE(b->image.width, kLimit) << what;
                EXPECT_LE(b->image.height, kLimit) << what;
                if (!half)
                {
                    const std::string bad = check_texels(s, b, c.m);
                    EXPECT_TRUE(bad.empty()) << what << ": " << bad;
                }
                Mat out;
                ASSERT_EQ(s.download(g, out, opt), 0) << what;
                KITE_EXPECT_LAYER_OK(compare(out, c.m, half ? 1e-3f : 0.f, what));
            }
}

TEST_F(OpenCLFold, TooLargeEvenFoldedIsRefused)
{
    reseed(18);
    cl::Context* ctx = device();
    if (!ctx)
        GTEST_SKIP() << "no usable OpenCL device";
    Option opt;
    opt.use_opencl = true;
    cl::Session s(ctx, opt);
    GpuBlobPtr g;
    // 1025 texels: one more than 32 x 32
    EXPECT_EQ(s.upload(RandomMat(4 * 1025), g, nullptr, opt), (int)KITE_GPU_CANNOT_HOLD);
    cl::ClBlobPtr b;
    EXPECT_EQ(s.create_blob(RandomMat(4 * 40), b), (int)KITE_GPU_CANNOT_HOLD) << "folded without allow_fold";
    EXPECT_EQ(s.create_blob(RandomMat(4 * 40), b, false, true), 0);
}

// an SSD head at small shapes: every blob of the confidence branch, the
// priors and their concatenations is over the 32-texel limit (the priors
// 560 + 140 texels in one column: folded into 32 x 22)
const char kHead[] = "7767517\n"
                     "27 39\n"
                     "Input in 0 1 data\n"
                     "Input in1 0 1 data1\n"
                     "Split sp 1 6 data d0 d1 d2 d3 d4 d5\n"
                     "Permute p0 1 1 d0 p0 0=3\n"
                     "Flatten f0 1 1 p0 f0\n"
                     "Flatten f1 1 1 d1 f1\n"
                     "Concat cat0 2 1 f0 f1 cat0 0=0\n"
                     "ReLU relu 1 1 cat0 cat 0=0.1\n"
                     "Split sp2 1 5 cat c0 c1 c2 c3 c4\n"
                     "Reshape r 1 1 c0 r 0=10 1=-1\n"
                     "Softmax sm 1 1 r sm 0=1 1=1\n"
                     "Flatten f2 1 1 sm out1\n"
                     "Softmax sm1 1 1 c1 out2 0=0 1=1\n"
                     "Slice sl 1 2 c2 s0 out3 -23300=2,101,-233 1=0\n"
                     "Crop cr 1 1 c3 out4 -23309=1,3 -23310=1,-5 -23311=1,0\n"
                     "PriorBox pb 2 1 d2 d3 pb -23300=1,21.0 -23301=1,45.0 -23302=1,2.0 9=-233 10=-233 11=8.0 12=8.0 13=0.5\n"
                     "PriorBox pb2 2 1 d4 d5 pb2 -23300=1,45.0 9=-233 10=-233 11=16.0 12=16.0 13=0.5\n"
                     "Concat pcat 2 1 pb pb2 out5 0=1\n"
                     "Reshape r2 1 1 c4 r2 0=-1 1=2\n"
                     "Permute p2 1 1 r2 out7 0=1\n"
                     "AbsVal abs 1 1 data1 a1\n"
                     "Softmax sm2 1 1 a1 sm2 0=0 1=1\n"
                     "Split sp4 1 2 sm2 sm2a sm2b\n"
                     "Eltwise elt 2 1 sm2a sm2b out6 0=1\n"
                     "Split sp3 1 2 s0 s0a s0b\n"
                     "Concat cat2 2 1 s0a s0b c8 0=0\n"
                     "Sigmoid sg 1 1 c8 out8\n";

std::vector<Mat> run(const char* param, bool opencl, bool half, bool packing, const Mat& data, const Mat& data1,
                     std::vector<int>* on_cpu_unexpected, Net* keep = nullptr)
{
    Net local;
    Net& net = keep ? *keep : local;
    net.opt.use_opencl = opencl;
    net.opt.use_vulkan_compute = false;
    net.opt.use_fp16_storage = half;
    net.opt.use_fp16_arithmetic = false;
    net.opt.use_packing_layout = packing;
    EXPECT_EQ(net.load_param_mem(param), 0);
    EXPECT_EQ(net.load_model_empty(), 0);
    std::vector<Mat> outs;
    Extractor ex = net.create_extractor();
    EXPECT_EQ(ex.input("data", data), 0);
    EXPECT_EQ(ex.input("data1", data1), 0);
    const char* names[] = {"out1", "out2", "out3", "out4", "out5", "out6", "out7", "out8"};
    for (const char* n : names)
    {
        Mat m;
        EXPECT_EQ(ex.extract(n, m), 0) << n;
        outs.push_back(m);
    }
    if (on_cpu_unexpected)
        for (size_t i = 0; i < net.layers().size(); i++)
        {
            const Layer* l = net.layers()[i];
            const bool allowed = l->type == "Input" || l->name == "abs" || l->name == "elt";
            if (!allowed && ex.layer_backend((int)i) != BACKEND_OPENCL)
                on_cpu_unexpected->push_back((int)i);
            if (l->name == "elt") // reads folded inputs only where its driver is listed by folded_ok
                EXPECT_EQ(ex.layer_backend((int)i), cl::folded_ok(l) ? (int)BACKEND_OPENCL : (int)BACKEND_CPU);
        }
    return outs;
}

TEST_F(OpenCLFold, SsdHeadMatchesCpuOnTheDevice)
{
    reseed(19);
    if (!device())
        GTEST_SKIP() << "no usable OpenCL device";
    const std::string param = kHead;
    // odd and even channel counts; data1 a multiple of 4 (elempack 4 on the CPU side)
    const int shapes[][3] = {{5, 7, 12}, {5, 7, 13}};
    for (const auto& sh : shapes)
        for (int half = 0; half < 2; half++)
            for (int packing = 0; packing < 2; packing++)
            {
                Mat data = RandomMat(sh[0], sh[1], sh[2]);
                Mat data1 = RandomMat(4 * 150);
                const std::string what = "data " + shape_string(data) + (half ? " fp16" : " fp32") +
                                         (packing ? " packing" : " elempack 1");
                std::vector<int> unexpected;
                std::vector<Mat> g = run(param.c_str(), true, half != 0, packing != 0, data, data1, &unexpected);
                std::vector<Mat> c = run(param.c_str(), false, false, false, data, data1, nullptr);
                Net names;
                names.load_param_mem(param.c_str());
                for (int i : unexpected)
                    ADD_FAILURE() << what << ": layer '" << names.layers()[i]->name << "' ("
                                  << names.layers()[i]->type << ") ran on the CPU";
                for (size_t o = 0; o < g.size(); o++)
                    KITE_EXPECT_LAYER_OK(compare(g[o], c[o], half ? 2e-3f : 1e-5f, what + " out" + std::to_string(o + 1)));
            }
}

// Concat of 11 inputs through the gather (8 inputs a launch: joined in two
// steps), along h of dims 3 (the natural images) and along w of dims 1 (folded)
TEST_F(OpenCLFold, ConcatOfManyInputs)
{
    reseed(20);
    if (!device())
        GTEST_SKIP() << "no usable OpenCL device";
    const char param[] = "7767517\n"
                         "5 15\n"
                         "Input in 0 1 data\n"
                         "Split sp 1 11 data a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10\n"
                         "Concat cath 11 1 a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 outh 0=1\n"
                         "Flatten f 1 1 outh fl\n"
                         "Concat catw 1 1 fl outw 0=0\n";
    for (int half = 0; half < 2; half++)
    {
        Mat data = RandomMat(3, 2, 5); // outh 3 x 22 x 5, outw 330 (83 texels: folded)
        std::vector<Mat> outs[2];
        int cath_backend = -1;
        for (int gpu = 0; gpu < 2; gpu++)
        {
            Net net;
            net.opt.use_opencl = gpu != 0;
            net.opt.use_fp16_storage = half != 0 && gpu != 0;
            ASSERT_EQ(net.load_param_mem(param), 0);
            ASSERT_EQ(net.load_model_empty(), 0);
            Extractor ex = net.create_extractor();
            ASSERT_EQ(ex.input("data", data), 0);
            for (const char* n : {"outh", "outw"})
            {
                Mat m;
                ASSERT_EQ(ex.extract(n, m), 0) << n;
                outs[gpu].push_back(m);
            }
            if (gpu)
                cath_backend = ex.layer_backend(net.find_layer_index_by_name("cath"));
        }
        EXPECT_EQ(cath_backend, (int)BACKEND_OPENCL);
        for (size_t o = 0; o < 2; o++)
            KITE_EXPECT_LAYER_OK(compare(outs[1][o], outs[0][o], half ? 2e-3f : 0.f,
                                         std::string(half ? "fp16" : "fp32") + " output " + std::to_string(o)));
    }
}

// BinaryOp on folded blobs (a transformer's bias add on its [E, 1, tokens]
// projections): same-shaped inputs, a dims-1 bias broadcast along w (the
// gather) and a scalar, all on the device and equal to the CPU
TEST_F(OpenCLFold, BinaryOpOnFoldedBlobs)
{
    reseed(21);
    if (!device())
        GTEST_SKIP() << "no usable OpenCL device";
    const char param[] = "7767517\n"
                         "6 8\n"
                         "Input in 0 1 data\n"
                         "Input in1 0 1 bias\n"
                         "Split sp 1 2 data a b\n"
                         "BinaryOp mul 2 1 a b o1 0=2\n"
                         "BinaryOp add 2 1 o1 bias o2 0=0\n"
                         "BinaryOp sc 1 1 o2 out 0=3 1=1 2=0.5\n";
    for (int half = 0; half < 2; half++)
    {
        Mat data = RandomMat(150, 1, 7), bias = RandomMat(150); // 300 and 38 texels wide: folded
        Mat outs[2];
        for (int gpu = 0; gpu < 2; gpu++)
        {
            Net net;
            net.opt.use_opencl = gpu != 0;
            net.opt.use_fp16_storage = half != 0 && gpu != 0;
            ASSERT_EQ(net.load_param_mem(param), 0);
            ASSERT_EQ(net.load_model_empty(), 0);
            Extractor ex = net.create_extractor();
            ASSERT_EQ(ex.input("data", data), 0);
            ASSERT_EQ(ex.input("bias", bias), 0);
            ASSERT_EQ(ex.extract("out", outs[gpu]), 0);
            if (gpu)
                for (const char* n : {"mul", "add", "sc"})
                    EXPECT_EQ(ex.layer_backend(net.find_layer_index_by_name(n)), (int)BACKEND_OPENCL) << n;
        }
        KITE_EXPECT_LAYER_OK(compare(outs[1], outs[0], half ? 2e-3f : 1e-6f, std::string(half ? "fp16" : "fp32")));
    }
}

} // namespace
