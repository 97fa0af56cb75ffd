// The Net's side of the GPU backends, with a fake backend that keeps its
// "device" blobs in host memory: layers of a GPU backend get their inputs
// uploaded once, CPU layers and extract() get downloads, results stay on the
// device between GPU layers, light mode releases device blobs, and a GPU
// backend that is missing or refused leaves every layer on the CPU.
#include "testutil.h"

#include "cpu.h"
#include "gpu/gpu.h"
#include "gpu/cpu_fallback.h"
#include "layer.h"
#include "log.h"
#include "net.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

using namespace kite;

namespace {

struct FakeBlob : GpuBlob
{
    Mat data; // fp32, elempack 1
};

struct Counters
{
    int uploads = 0, downloads = 0, finishes = 0, live = 0;
};
Counters g_count;

struct FakeBlobCounted : FakeBlob
{
    FakeBlobCounted() { g_count.live++; }
    ~FakeBlobCounted() override { g_count.live--; }
};

// uploads of blobs with more elements than this are refused as a device
// that cannot hold them refuses them (KITE_GPU_CANNOT_HOLD); -1: no limit
int g_max_upload = -1;

class FakeSession : public GpuSession
{
public:
    int upload(const Mat& m, GpuBlobPtr& out, const Layer*, const Option& opt) override
    {
        if (g_max_upload >= 0 && (int)(m.total() * m.elempack) > g_max_upload)
            return KITE_GPU_CANNOT_HOLD;
        auto b = std::make_shared<FakeBlobCounted>();
        Mat f = m;
        if (f.elempack != 1)
            convert_packing(m, f, 1, opt);
        b->data = f.clone();
        b->backend = BACKEND_VULKAN;
        b->shape = gpu_shape_of(b->data);
        out = b;
        g_count.uploads++;
        return 0;
    }
    int download(const GpuBlobPtr& g, Mat& m, const Option&) override
    {
        m = static_cast<const FakeBlob*>(g.get())->data.clone();
        g_count.downloads++;
        return 0;
    }
    int finish() override
    {
        g_count.finishes++;
        return 0;
    }
};

class FakeBackend : public GpuBackend
{
public:
    bool present = true;
    int backend() const override { return BACKEND_VULKAN; }
    const char* name() const override { return "fake"; }
    bool available(const Option&) override { return present; }
    GpuSession* create_session(const Option&) override { return new FakeSession; }
};

// adds 1 to every element, on the fake device
class GpuAddOne : public Layer
{
public:
    GpuAddOne()
    {
        one_blob_only = true;
        backend = BACKEND_VULKAN;
        support_vulkan = true;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession&, const Option&) const override
    {
        const FakeBlob* in = static_cast<const FakeBlob*>(bottoms[0].get());
        auto out = std::make_shared<FakeBlobCounted>();
        out->data = in->data.clone();
        float* p = out->data;
        for (size_t i = 0; i < out->data.total(); i++)
            p[i] += 1.f;
        out->backend = BACKEND_VULKAN;
        out->shape = gpu_shape_of(out->data);
        tops[0] = out;
        return 0;
    }
};
Layer* gpu_add_one_creator(void*) { return new GpuAddOne; }

// max(x, 0) on the CPU only (the built-in ReLU has real GPU rows when a
// backend is built, which would not work on the fake device)
class CpuRelu : public Layer
{
public:
    CpuRelu()
    {
        one_blob_only = true;
        support_inplace = true;
    }
    int forward_inplace(Mat& m, const Option&) const override
    {
        float* p = m;
        for (size_t i = 0; i < m.total(); i++)
            p[i] = std::max(p[i], 0.f);
        return 0;
    }
};
Layer* cpu_relu_creator(void*) { return new CpuRelu; }

// in -> g1 (gpu) -> r (CpuRelu) -> g2 (gpu) -> g3 (gpu) -> out
const char* kParam = "7767517\n"
                     "5 5\n"
                     "Input in 0 1 in 0=4 1=3 2=2\n"
                     "GpuAddOne g1 1 1 in a\n"
                     "CpuRelu r 1 1 a b\n"
                     "GpuAddOne g2 1 1 b c\n"
                     "GpuAddOne g3 1 1 c out\n";

Mat input_mat()
{
    Mat m(4, 3, 2);
    float* p = m;
    for (size_t i = 0; i < m.total(); i++)
        p[i] = (float)i - 10.f;
    return m;
}

struct BackendScope
{
    FakeBackend fake;
    BackendScope() { set_gpu_backend(BACKEND_VULKAN, &fake); }
    ~BackendScope() { set_gpu_backend(BACKEND_VULKAN, nullptr); }
};

TEST(GpuHook, TransfersOnlyAtBackendBoundaries)
{
    BackendScope scope;
    for (int light = 0; light < 2; light++)
    {
        g_count = Counters();
        {
            Net net;
            net.opt.use_vulkan_compute = true;
            ASSERT_EQ(net.register_custom_layer("GpuAddOne", gpu_add_one_creator), 0);
            ASSERT_EQ(net.register_custom_layer("CpuRelu", cpu_relu_creator), 0);
            ASSERT_EQ(net.load_param_mem(kParam), 0);
            ASSERT_EQ(net.load_model_empty(), 0);
            Extractor ex = net.create_extractor();
            ex.set_light_mode(light != 0);
            Mat in = input_mat();
            ASSERT_EQ(ex.input("in", in), 0);
            Mat out;
            ASSERT_EQ(ex.extract("out", out), 0);
            ASSERT_EQ(out.total(), in.total());
            const float* pi = in;
            const float* po = out;
            for (size_t i = 0; i < in.total(); i++)
                EXPECT_FLOAT_EQ(po[i], std::max(pi[i] + 1.f, 0.f) + 2.f) << "element " << i << " light " << light;
            // in -> device; a -> host for ReLU; b -> device; out -> host
            EXPECT_EQ(g_count.uploads, 2) << "light " << light;
            EXPECT_EQ(g_count.downloads, 2) << "light " << light;
            // a second extract of the same blob downloads nothing more
            Mat again;
            ASSERT_EQ(ex.extract("out", again), 0);
            EXPECT_EQ(g_count.downloads, 2);
            if (light)
                EXPECT_EQ(g_count.live, 1) << "light mode keeps only the output on the device";
        }
        EXPECT_EQ(g_count.live, 0) << "device blobs leaked";
    }
}

TEST(GpuHook, MissingDeviceRunsOnTheCpuAndCustomGpuLayerFailsCleanly)
{
    BackendScope scope;
    scope.fake.present = false;
    // built-in layers: the GPU rows are skipped, everything runs on the CPU
    Net net;
    net.opt.use_vulkan_compute = true;
    ASSERT_EQ(net.load_param_mem("7767517\n2 2\nInput in 0 1 in 0=4\nReLU r 1 1 in out\n"), 0);
    ASSERT_EQ(net.load_model_empty(), 0);
    for (const Layer* l : net.layers())
        EXPECT_EQ(l->backend, (int)BACKEND_CPU);
    // a custom layer that can only run on the device is an error, not a crash
    Net net2;
    net2.opt.use_vulkan_compute = true;
    ASSERT_EQ(net2.register_custom_layer("GpuAddOne", gpu_add_one_creator), 0);
    ASSERT_EQ(net2.register_custom_layer("CpuRelu", cpu_relu_creator), 0);
    EXPECT_NE(net2.load_param_mem(kParam), 0);
    EXPECT_NE(std::string(last_error()).find("GpuAddOne"), std::string::npos) << last_error();
}

TEST(GpuHook, ProfilingObserverSeesGpuLayers)
{
    BackendScope scope;
    g_count = Counters();
    Net net;
    net.opt.use_vulkan_compute = true;
    ASSERT_EQ(net.register_custom_layer("GpuAddOne", gpu_add_one_creator), 0);
    ASSERT_EQ(net.register_custom_layer("CpuRelu", cpu_relu_creator), 0);
    ASSERT_EQ(net.load_param_mem(kParam), 0);
    ASSERT_EQ(net.load_model_empty(), 0);
    // load_model finishes one session per GPU backend in use: the weights' transfer
    EXPECT_EQ(g_count.finishes, 1);
    const int finishes_at_load = g_count.finishes;
    Extractor ex = net.create_extractor();
    int seen = 0;
    ex.set_layer_observer([](const Layer* l, int, double ms, const std::vector<Mat>& tops, void* ud) {
        if (l->backend == BACKEND_VULKAN)
        {
            EXPECT_GE(ms, 0.0);
            ASSERT_EQ(tops.size(), 1u);
            EXPECT_EQ(tops[0].w, 4);
            EXPECT_EQ(tops[0].c, 2);
            ++*(int*)ud;
        }
    }, &seen);
    ASSERT_EQ(ex.input("in", input_mat()), 0);
    Mat out;
    ASSERT_EQ(ex.extract("out", out), 0);
    EXPECT_EQ(seen, 3);
    EXPECT_EQ(g_count.finishes - finishes_at_load, 3) << "each GPU layer is waited for when profiled";
}

} // namespace

// a GPU layer that hands its work to the CPU (a driver's fallback for a
// shape it has no kernel for): it says so through note_gpu_layer_on_cpu()
class GpuFallsBack : public GpuAddOne
{
public:
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& s, const Option& opt) const override
    {
        note_gpu_layer_on_cpu();
        return GpuAddOne::forward_gpu(bottoms, tops, s, opt);
    }
};
Layer* gpu_falls_back_creator(void*) { return new GpuFallsBack; }

TEST(GpuHook, LayerBackendIsWhereTheLayerRan)
{
    BackendScope scope;
    Net net;
    net.opt.use_vulkan_compute = true;
    ASSERT_EQ(net.register_custom_layer("GpuAddOne", gpu_add_one_creator), 0);
    ASSERT_EQ(net.register_custom_layer("GpuFallsBack", gpu_falls_back_creator), 0);
    ASSERT_EQ(net.register_custom_layer("CpuRelu", cpu_relu_creator), 0);
    ASSERT_EQ(net.load_param_mem("7767517\n6 6\n"
                                 "Input in 0 1 in 0=4 1=3 2=2\n"
                                 "GpuAddOne g1 1 1 in a\n"
                                 "CpuRelu r 1 1 a b\n"
                                 "GpuAddOne g2 1 1 b c\n"
                                 "GpuFallsBack g3 1 1 c out\n"
                                 "GpuAddOne unused 1 1 in x\n"),
              0);
    ASSERT_EQ(net.load_model_empty(), 0);
    Extractor ex = net.create_extractor();
    for (int li = 1; li < 6; li++)
        EXPECT_EQ(ex.layer_backend(li), -1) << "layer " << li << " has not run";
    ASSERT_EQ(ex.input("in", input_mat()), 0);
    Mat out;
    ASSERT_EQ(ex.extract("out", out), 0);
    const int want[6] = {BACKEND_CPU, BACKEND_VULKAN, BACKEND_CPU, BACKEND_VULKAN, BACKEND_CPU, -1};
    for (int li = 0; li < 6; li++)
        EXPECT_EQ(ex.layer_backend(li), want[li]) << "layer " << li;
    EXPECT_EQ(ex.layer_backend(6), -1);
}

// adds 1 on the device, except (refuse_wide) for inputs wider than 4, which
// its device "cannot hold" (KITE_GPU_CANNOT_HOLD): then its CPU forward adds 1
class GpuCannotHoldWide : public GpuAddOne
{
public:
    explicit GpuCannotHoldWide(bool r) : refuse_wide(r) { support_inplace = true; }
    bool refuse_wide;
    int forward_inplace(Mat& m, const Option&) const override
    {
        float* p = m;
        for (size_t i = 0; i < m.total(); i++)
            p[i] += 1.f;
        return 0;
    }
    int forward_gpu(const std::vector<GpuBlobPtr>& bottoms, std::vector<GpuBlobPtr>& tops, GpuSession& s, const Option& opt) const override
    {
        if (refuse_wide && bottoms[0]->shape.w > 4)
            return KITE_GPU_CANNOT_HOLD;
        return GpuAddOne::forward_gpu(bottoms, tops, s, opt);
    }
};
Layer* gpu_cannot_hold_wide_creator(void*) { return new GpuCannotHoldWide(true); }
Layer* gpu_add_one_or_cpu_creator(void*) { return new GpuCannotHoldWide(false); }

// the one GPU fallback rule: a layer whose driver or session answers
// KITE_GPU_CANNOT_HOLD runs on the CPU (its reference), in light mode too
// (its inputs are still there), and the forward succeeds
TEST(GpuHook, CannotHoldRunsTheLayerOnTheCpu)
{
    BackendScope scope;
    for (int refuse_upload = 0; refuse_upload < 2; refuse_upload++)
    {
        for (int light = 0; light < 2; light++)
        {
            Net net;
            net.opt.use_vulkan_compute = true;
            ASSERT_EQ(net.register_custom_layer("GpuAddOne", gpu_add_one_or_cpu_creator), 0);
            ASSERT_EQ(net.register_custom_layer("GpuCannotHoldWide", gpu_cannot_hold_wide_creator), 0);
            ASSERT_EQ(net.load_param_mem("7767517\n4 4\n"
                                         "Input in 0 1 in\n"
                                         "GpuAddOne g1 1 1 in a\n"
                                         "GpuCannotHoldWide g2 1 1 a b\n"
                                         "GpuAddOne g3 1 1 b out\n"),
                      0);
            ASSERT_EQ(net.load_model_empty(), 0);
            Extractor ex = net.create_extractor();
            ex.set_light_mode(light != 0);
            // width 5: g2 refuses; with the uploads refused, nothing fits the device
            Mat in(refuse_upload ? 4 : 5, 3, 2);
            float* pi = in;
            for (size_t i = 0; i < in.total(); i++)
                pi[i] = (float)i;
            g_max_upload = refuse_upload ? 8 : -1;
            ASSERT_EQ(ex.input("in", in), 0);
            Mat out;
            const int ret = ex.extract("out", out);
            g_max_upload = -1;
            ASSERT_EQ(ret, 0) << "refuse_upload " << refuse_upload << " light " << light;
            ASSERT_EQ(out.total(), in.total());
            const float* po = out;
            for (size_t i = 0; i < in.total(); i++)
                ASSERT_FLOAT_EQ(po[i], pi[i] + 3.f) << "element " << i;
            std::vector<LayerPlacement> p = ex.placement();
            ASSERT_EQ(p.size(), 4u);
            EXPECT_EQ(p[2].backend, BACKEND_CPU) << "g2 ran on the CPU";
            EXPECT_EQ(p[1].backend, refuse_upload ? BACKEND_CPU : BACKEND_VULKAN);
            EXPECT_EQ(p[3].backend, refuse_upload ? BACKEND_CPU : BACKEND_VULKAN);
        }
    }
}

// a CPU layer with a kernel of its own that hands inputs of width 5 to its
// "reference" (and says so, as a CPU driver does)
class CpuReluFallsBack : public CpuRelu
{
public:
    const char* kernel_path() const override { return "fast"; }
    int forward_inplace(Mat& m, const Option& opt) const override
    {
        if (m.w == 5)
            note_cpu_layer_on_reference();
        return CpuRelu::forward_inplace(m, opt);
    }
};
Layer* cpu_relu_falls_back_creator(void*) { return new CpuReluFallsBack; }

TEST(GpuHook, PlacementNamesTheRowThatRan)
{
    EXPECT_STREQ(layer_row_name(BACKEND_CPU, CPU_ISA_NONE), "cpu:reference");
    EXPECT_STREQ(layer_row_name(BACKEND_CPU, CPU_ISA_AVX2), "cpu:avx2");
    EXPECT_STREQ(layer_row_name(BACKEND_CPU, CPU_ISA_AVX512VNNI), "cpu:avx512vnni");
    EXPECT_STREQ(layer_row_name(BACKEND_CPU, CPU_ISA_NEON), "cpu:neon");
    EXPECT_STREQ(layer_row_name(BACKEND_CPU, CPU_ISA_ARM82), "cpu:arm82");
    EXPECT_STREQ(layer_row_name(BACKEND_VULKAN, CPU_ISA_NONE), "vulkan");
    EXPECT_STREQ(layer_row_name(BACKEND_OPENCL, CPU_ISA_AVX2), "opencl");
    EXPECT_STREQ(layer_row_name(7, 0), "unknown");
    EXPECT_STREQ(layer_row_name(BACKEND_CPU, 99), "unknown");

    BackendScope scope;
    Net net;
    net.opt.use_vulkan_compute = true;
    ASSERT_EQ(net.register_custom_layer("GpuAddOne", gpu_add_one_creator), 0);
    ASSERT_EQ(net.register_custom_layer("GpuFallsBack", gpu_falls_back_creator), 0);
    ASSERT_EQ(net.register_custom_layer("CpuReluFallsBack", cpu_relu_falls_back_creator), 0);
    ASSERT_EQ(net.load_param_mem("7767517\n7 7\n"
                                 "Input in 0 1 in 0=4 1=3 2=2\n"
                                 "GpuAddOne g1 1 1 in a\n"
                                 "CpuReluFallsBack r 1 1 a b\n"
                                 "GpuFallsBack g3 1 1 b c\n"
                                 "BNLL builtin 1 1 c out\n"
                                 "GpuAddOne unused 1 1 in x\n"
                                 "ReLU unused2 1 1 x y\n"),
              0);
    ASSERT_EQ(net.load_model_empty(), 0);
    const Layer* builtin = net.layers()[4];
    ASSERT_EQ(builtin->backend, BACKEND_CPU);

    // at load: the rows the Net chose
    EXPECT_FALSE(net.layer_placement(2).ran);
    EXPECT_STREQ(net.layer_placement(1).row, "vulkan");
    EXPECT_STREQ(net.layer_placement(2).row, "custom");
    EXPECT_STREQ(net.layer_placement(2).path, "fast");
    EXPECT_STREQ(net.layer_placement(4).row, layer_row_name(BACKEND_CPU, builtin->isa));
    EXPECT_STREQ(net.layer_placement(99).row, "-");

    Extractor ex = net.create_extractor();
    for (const LayerPlacement& p : ex.placement())
    {
        EXPECT_FALSE(p.ran);
        EXPECT_STREQ(p.row, "-");
        EXPECT_EQ(p.path, nullptr);
    }
    ASSERT_EQ(ex.input("in", input_mat()), 0);
    Mat out;
    ASSERT_EQ(ex.extract("out", out), 0);
    std::vector<LayerPlacement> p = ex.placement();
    ASSERT_EQ(p.size(), 7u);
    EXPECT_TRUE(p[0].ran);
    EXPECT_STREQ(p[0].row, "cpu:reference") << "the Input layer: its blob was set";
    EXPECT_STREQ(p[1].row, "vulkan");
    EXPECT_EQ(p[1].backend, BACKEND_VULKAN);
    EXPECT_STREQ(p[2].row, "custom");
    EXPECT_STREQ(p[2].path, "fast") << "input width 4: the layer's own kernel ran";
    EXPECT_TRUE(p[2].custom);
    EXPECT_STREQ(p[3].row, "custom") << "a GPU layer that fell back names the CPU code that ran";
    EXPECT_EQ(p[3].backend, BACKEND_CPU);
    EXPECT_EQ(p[3].isa, (int)CPU_ISA_NONE);
    EXPECT_STREQ(p[4].row, layer_row_name(BACKEND_CPU, builtin->isa));
    EXPECT_EQ(p[4].isa, builtin->isa);
    EXPECT_FALSE(p[5].ran);
    EXPECT_STREQ(p[5].row, "-");
    EXPECT_STREQ(p[6].row, "-");

    // width 5: the CPU layer hands the run to its reference: no kernel path,
    // isa reference
    Extractor ex2 = net.create_extractor();
    Mat in5(5, 3, 2);
    in5.fill(0.5f);
    ASSERT_EQ(ex2.input("in", in5), 0);
    ASSERT_EQ(ex2.extract("out", out), 0);
    LayerPlacement r = ex2.layer_placement(2);
    EXPECT_TRUE(r.ran);
    EXPECT_EQ(r.isa, (int)CPU_ISA_NONE);
    EXPECT_EQ(r.path, nullptr);

    // the reference row when the CPU is capped there
    Net ref;
    ref.opt.max_cpu_isa = CPU_ISA_NONE;
    ASSERT_EQ(ref.load_param_mem("7767517\n2 2\nInput in 0 1 in 0=4 1=3 2=2\nReLU r 1 1 in out\n"), 0);
    ASSERT_EQ(ref.load_model_empty(), 0);
    Extractor ex3 = ref.create_extractor();
    ASSERT_EQ(ex3.input("in", input_mat()), 0);
    ASSERT_EQ(ex3.extract("out", out), 0);
    EXPECT_STREQ(ex3.layer_placement(1).row, "cpu:reference");
}
