// Recorded GPU forwards (src/gpu/recording.h): a forward is recorded once per
// (input shapes, extracted blobs) and replayed. Each forward here gets new
// random input data and is compared with the CPU, so a replay that reused a
// stale input, output or intermediate buffer fails: the same shape several
// times, another shape (recorded again), the first shape again (replayed
// from the Net's idle recordings), two outputs extracted in order (two
// chapters), a CPU layer between GPU layers (two segments), and a CPU layer
// whose output shape follows the data (a replay that meets another upload
// shape goes back and runs layer by layer). The run
// statistics (Extractor::gpu_run_stats) must show that replays happened, so
// that the test cannot pass by running layer by layer every time.
// Runs on Vulkan and on OpenCL where a device is usable (lavapipe / PoCL in
// CI), else skips.
#include "testutil.h"

#include "common/random_modelbin.h"
#include "gpu/gpu.h"
#include "layer.h"
#include "net.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

// two outputs (out1 is also read by the head), a branch, a residual sum and
// a channel shuffle (on OpenCL a gather through an index map the layer keeps:
// the map must not take an image a recorded launch writes)
const char kBranchy[] = "7767517\n"
                        "9 10\n"
                        "Input in 0 1 data\n"
                        "Convolution c1 1 1 data c1 0=8 1=3 4=1 5=1 6=216 9=1\n"
                        "Split sp 1 2 c1 s0 s1\n"
                        "Convolution c2 1 1 s0 c2 0=8 1=1 5=1 6=64 9=1\n"
                        "ConvolutionDepthWise dw 1 1 s1 dw 0=8 1=3 4=1 5=1 6=72 7=8\n"
                        "Eltwise add 2 1 c2 dw sum 0=1\n"
                        "ShuffleChannel shuf 1 1 sum sh 0=2\n"
                        "Pooling pool 1 1 sh out1 0=0 1=2 2=2\n"
                        "Convolution head 1 1 out1 out2 0=4 1=1 5=1 6=32\n";

// AbsVal has no GPU row: the forward is two GPU segments around it
const char kCpuInMiddle[] = "7767517\n"
                            "5 5\n"
                            "Input in 0 1 data\n"
                            "Convolution c1 1 1 data c1 0=8 1=3 4=1 5=1 6=216\n"
                            "AbsVal abs 1 1 c1 a\n"
                            "Convolution c2 1 1 a c2 0=8 1=3 4=1 5=1 6=576 9=1\n"
                            "Convolution head 1 1 c2 out 0=4 1=1 5=1 6=32\n";

// A CPU layer whose output shape depends on the data: the first `keep`
// columns of its first input, keep = 3 where the second input's first
// value is negative, else 6
class DataShape : public Layer
{
public:
    DataShape() { one_blob_only = false; }
    int forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override
    {
        const Mat& a = bottoms[0];
        const int keep = ((const float*)bottoms[1].data)[0] < 0.f ? 3 : 6;
        if (a.dims != 3 || a.elempack != 1 || a.elemsize != 4u || a.w < keep)
            return -1;
        tops[0].create(keep, a.h, a.c, 4u, opt.blob_allocator);
        if (tops[0].empty())
            return -100;
        for (int q = 0; q < a.c; q++)
            for (int y = 0; y < a.h; y++)
                for (int x = 0; x < keep; x++)
                    tops[0].channel(q).row(y)[x] = a.channel(q).row(y)[x];
        return 0;
    }
};

Layer* create_data_shape(void*)
{
    return new DataShape;
}

// a GPU layer reads what the data-shaped CPU layer wrote
const char kShapeFromData[] = "7767517\n"
                              "5 6\n"
                              "Input in 0 1 data\n"
                              "Split sp 1 2 data d0 d1\n"
                              "Convolution c1 1 1 d0 c1 0=4 1=3 4=1 5=1 6=108\n"
                              "DataShape ds 2 1 c1 d1 ds\n"
                              "Convolution c2 1 1 ds out 0=4 1=3 4=1 5=1 6=144 9=1\n";

bool load(Net& net, const char* param, int backend)
{
    net.register_custom_layer("DataShape", create_data_shape);
    net.opt.use_vulkan_compute = backend == BACKEND_VULKAN;
    net.opt.use_opencl = backend == BACKEND_OPENCL;
    net.opt.use_fp16_storage = false;
    net.opt.use_fp16_arithmetic = false;
    if (net.load_param_mem(param) != 0)
        return false;
    tools::RandomModelBin mb(seed());
    mb.follow_graph(net);
    return net.load_model(mb) == 0;
}

void expect_close(const Mat& a, const Mat& b, const std::string& what)
{
    ASSERT_FALSE(a.empty()) << what;
    ASSERT_EQ(a.dims, b.dims) << what;
    ASSERT_EQ(a.w, b.w) << what;
    ASSERT_EQ(a.h, b.h) << what;
    ASSERT_EQ(a.c, b.c) << what;
    for (int q = 0; q < a.c; q++)
    {
        const float* pa = a.channel(q);
        const float* pb = b.channel(q);
        for (int i = 0; i < a.w * a.h; i++)
            ASSERT_LE(std::fabs(pa[i] - pb[i]), 1e-3f * std::fmax(1.f, std::fabs(pb[i])))
                << what << ": channel " << q << " element " << i << " gpu " << pa[i] << " cpu " << pb[i] << " (seed " << seed() << ")";
    }
}

struct Forward
{
    std::vector<Mat> outs;
    Extractor::GpuRunStats stats;
};

Forward forward(const Net& net, const Mat& in, const std::vector<std::string>& outs, bool light = true)
{
    Forward r;
    Extractor ex = net.create_extractor();
    ex.set_light_mode(light);
    EXPECT_EQ(ex.input("data", in), 0);
    for (const std::string& o : outs)
    {
        Mat m;
        EXPECT_EQ(ex.extract(o.c_str(), m), 0) << o;
        r.outs.push_back(m);
    }
    r.stats = ex.gpu_run_stats();
    return r;
}

void check_sequence(const char* param, int backend, const std::vector<std::string>& outs, int segments)
{
    Net gpu, cpu;
    ASSERT_TRUE(load(gpu, param, backend));
    ASSERT_TRUE(load(cpu, param, BACKEND_CPU));
    const int shapes[][2] = {{13, 11}, {13, 11}, {13, 11}, {20, 9}, {20, 9}, {13, 11}, {13, 11}};
    for (int i = 0; i < 7; i++)
    {
        const std::string what = "forward " + std::to_string(i) + " at " + std::to_string(shapes[i][0]) + "x" + std::to_string(shapes[i][1]);
        Mat in = RandomMat(shapes[i][0], shapes[i][1], 3); // new data every time
        Forward g = forward(gpu, in, outs);
        Forward c = forward(cpu, in, outs);
        for (size_t o = 0; o < outs.size(); o++)
            expect_close(g.outs[o], c.outs[o], what + " output " + outs[o]);
        // first time at a shape: recorded; then replayed (the shape 13x11
        // comes back from the Net's idle recordings)
        const bool first = i == 0 || i == 3;
        EXPECT_EQ(g.stats.recorded, first ? (int)outs.size() : 0) << what;
        EXPECT_EQ(g.stats.replayed, first ? 0 : (int)outs.size()) << what;
        EXPECT_EQ(g.stats.segments, segments) << what;
        EXPECT_EQ(c.stats.recorded + c.stats.replayed, 0) << "a CPU net records nothing";
    }
}

bool usable(int backend)
{
    Option opt;
    opt.use_vulkan_compute = backend == BACKEND_VULKAN;
    opt.use_opencl = backend == BACKEND_OPENCL;
    return gpu_backend_usable(backend, opt);
}

class GpuReplay : public ::testing::TestWithParam<int>
{
};

TEST_P(GpuReplay, SameShapeOtherShapeFirstShapeAgain)
{
    reseed(3);
    if (!usable(GetParam()))
        GTEST_SKIP() << "backend not usable";
    check_sequence(kBranchy, GetParam(), {"out1", "out2"}, 2);
}

TEST_P(GpuReplay, CpuLayerBetweenGpuLayers)
{
    reseed(4);
    if (!usable(GetParam()))
        GTEST_SKIP() << "backend not usable";
    {
        // the graph really splits: AbsVal on the CPU, its neighbours on the GPU
        Net net;
        ASSERT_TRUE(load(net, kCpuInMiddle, GetParam()));
        Extractor ex = net.create_extractor();
        Mat out;
        ASSERT_EQ(ex.input("data", RandomMat(9, 7, 3)), 0);
        ASSERT_EQ(ex.extract("out", out), 0);
        EXPECT_EQ(ex.layer_backend(net.find_layer_index_by_name("abs")), BACKEND_CPU);
        EXPECT_EQ(ex.layer_backend(net.find_layer_index_by_name("c1")), GetParam());
        EXPECT_EQ(ex.layer_backend(net.find_layer_index_by_name("c2")), GetParam());
    }
    check_sequence(kCpuInMiddle, GetParam(), {"out"}, 2);
}

TEST_P(GpuReplay, OtherExtractOrderAndReusedExtractor)
{
    reseed(5);
    if (!usable(GetParam()))
        GTEST_SKIP() << "backend not usable";
    Net gpu, cpu;
    ASSERT_TRUE(load(gpu, kBranchy, GetParam()));
    ASSERT_TRUE(load(cpu, kBranchy, BACKEND_CPU));
    // recorded as out1, out2; then asked for out2 first: runs layer by layer
    for (int order = 0; order < 3; order++)
    {
        std::vector<std::string> outs = order == 1 ? std::vector<std::string>{"out2", "out1"} : std::vector<std::string>{"out1", "out2"};
        Mat in = RandomMat(10, 10, 3);
        // (out2 first: out1 must outlive its consumer, light mode off)
        Forward g = forward(gpu, in, outs, false);
        Forward c = forward(cpu, in, outs, false);
        for (size_t o = 0; o < outs.size(); o++)
            expect_close(g.outs[o], c.outs[o], "order " + std::to_string(order) + " output " + outs[o]);
    }
    // one Extractor, a new input after extracting: layer by layer from there
    Extractor ex = gpu.create_extractor();
    Extractor ref = cpu.create_extractor();
    for (int i = 0; i < 3; i++)
    {
        Mat in = RandomMat(10, 10, 3), a, b;
        ASSERT_EQ(ex.input("data", in), 0);
        ASSERT_EQ(ref.input("data", in), 0);
        ex.set_light_mode(false);
        ASSERT_EQ(ex.extract("out1", a), 0);
        ASSERT_EQ(ref.extract("out1", b), 0);
        expect_close(a, b, "reused Extractor, forward " + std::to_string(i));
        ex.clear();
        ref.clear();
    }
}

TEST_P(GpuReplay, CpuLayerOutputShapeChanges)
{
    reseed(6);
    if (!usable(GetParam()))
        GTEST_SKIP() << "backend not usable";
    Net gpu, cpu;
    ASSERT_TRUE(load(gpu, kShapeFromData, GetParam()));
    ASSERT_TRUE(load(cpu, kShapeFromData, BACKEND_CPU));
    // the CPU layer's output 3 (first value < 0) or 6 columns wide: the same
    // input shape, another upload shape for c2
    const float first[] = {-1.f, -1.f, 1.f, 1.f, -1.f};
    // recorded, replayed, upload of another shape: layer by layer from the
    // data-shaped layer on (the recording dropped), recorded again, and
    // layer by layer again
    const int recorded[] = {1, 0, 0, 1, 0};
    const int replayed[] = {0, 1, 0, 0, 0};
    for (int i = 0; i < 5; i++)
    {
        Mat in = RandomMat(9, 8, 3);
        ((float*)in.data)[0] = first[i];
        Forward g = forward(gpu, in, {"out"});
        Forward c = forward(cpu, in, {"out"});
        expect_close(g.outs[0], c.outs[0], "forward " + std::to_string(i));
        EXPECT_EQ(g.outs[0].w, first[i] < 0 ? 3 : 6);
        EXPECT_EQ(g.stats.recorded, recorded[i]) << "forward " << i;
        EXPECT_EQ(g.stats.replayed, replayed[i]) << "forward " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuReplay, ::testing::Values((int)BACKEND_VULKAN, (int)BACKEND_OPENCL),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(i.param == BACKEND_VULKAN ? "vulkan" : "opencl"); });

} // namespace
