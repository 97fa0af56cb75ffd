// Out of memory, injected (issue 20): for each graph, a counting run finds
// how many CPU allocations (fast_malloc, which every Mat and both pool
// allocators use) loading the param, loading seeded random weights and one
// forward make; then for every N the whole thing runs again with the Nth
// allocation failing. Each run must either fail cleanly (the step that hit
// the failure returns -100) or succeed with the output of the counting run;
// never crash, never return another code, never leak (CI runs this test in
// its AddressSanitizer + LeakSanitizer build, where a leak fails it at exit).
//
// Graphs (shared folder, skipped when missing): squeezenet 48x48,
// mobilenet_ssd 96x96, yolov4-tiny 96x96, and vision_transformer with every
// width divided by 12 (768 -> 64, 12 heads -> 4, 3072 -> 256) and a 64x64
// input (2x2 patches + the class token): the same 144 layers, graph and
// layer types as the shared file, at a cost the sanitizer run affords.
//
// The same for GPU device memory on lavapipe / PoCL: oom_gpu below.
//
// Runs with more points than KITE_OOM_MAX_POINTS (default 2000) are sampled:
// the first and last 300 points always, evenly spaced ones between; the
// report line says so. KITE_OOM_MAX_POINTS=0 runs every point.
#include "testutil.h"

#include "allocator.h"
#include "allocator_hook.h"
#include "common/random_modelbin.h"
#include "gpu/gpu.h"
#include "layer.h"
#include "log.h"
#include "net.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

struct Injector
{
    std::atomic<long> count{0};
    long fail_at = 0; // 1-based; 0: never fail
    std::atomic<long> failed{0};
};

bool inject(size_t, void* userdata)
{
    Injector* in = (Injector*)userdata;
    long n = ++in->count;
    if (n == in->fail_at)
    {
        in->failed++;
        return false;
    }
    return true;
}

void quiet_sink(int, const char*, void*)
{
}

std::string read_text(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return "";
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// vision_transformer.param with widths / 12 for a 64x64 input (see the top)
std::string shrink_vit(const std::string& text)
{
    std::istringstream in(text);
    std::ostringstream out;
    std::string line;
    const long D = 64, F = 256, T = 5; // width, MLP width, tokens (2x2 + cls)
    while (std::getline(in, line))
    {
        std::string r = line;
        auto set = [&](const std::string& key, long v) {
            r = std::regex_replace(r, std::regex("(\\s" + key + "=)-?[0-9.e+-]+"), "$01" + std::to_string(v)); // $01: one group, then digits
        };
        if (r.compare(0, 10, "MemoryData") == 0)
        {
            set("0", D);
            if (r.find("pos_embed") != std::string::npos)
                set("1", T);
        }
        else if (r.compare(0, 11, "Convolution") == 0)
        {
            set("0", D);
            set("6", D * 3 * 32 * 32);
        }
        else if (r.compare(0, 9, "LayerNorm") == 0)
            set("0", D);
        else if (r.compare(0, 18, "MultiHeadAttention") == 0)
        {
            set("0", D);
            set("1", 4);
            set("2", D * D);
        }
        else if (r.compare(0, 7, "Reshape") == 0)
            set("1", D);
        else if (r.compare(0, 4, "Gemm") == 0)
        {
            // 8 = N (outputs), 9 = K (inputs): 3072 -> F, 768 -> D, the 1000 classes stay
            std::smatch m;
            for (const char* key : {"8", "9"})
                if (std::regex_search(r, m, std::regex(std::string("\\s") + key + "=([0-9]+)")))
                {
                    long v = atol(m[1].str().c_str());
                    set(key, v == 3072 ? F : v == 768 ? D : v);
                }
        }
        out << r << "\n";
    }
    return out.str();
}

// Seeded random weights are costly to make (yolov4-tiny: 6 M values), so
// they are made once (Recorder) and every run copies them (Replay): each
// buffer is a new Mat, as a file load makes it, so the copies are allocations
// the injector counts and fails like any other.
class Recorder : public ModelBin
{
public:
    explicit Recorder(const ModelBin& inner) : inner(inner) {}
    using ModelBin::load;
    Mat load(int w, int type) const override
    {
        Mat m = inner.load(w, type);
        mats.push_back(m.clone()); // a layer may change its weights in place
        return m;
    }
    void begin_layer(const Layer* layer, const ParamDict& pd) const override { inner.begin_layer(layer, pd); }
    const ModelBin& inner;
    mutable std::vector<Mat> mats;
};

class Replay : public ModelBin
{
public:
    explicit Replay(const std::vector<Mat>& mats) : mats(mats) {}
    using ModelBin::load;
    Mat load(int w, int type) const override
    {
        (void)type;
        if (next >= mats.size() || mats[next].w != w)
            return Mat(); // a different graph asks: cannot happen in one test
        return mats[next++].clone();
    }
    const std::vector<Mat>& mats;
    mutable size_t next = 0;
};

struct Graph
{
    const char* name;
    int w, h;
};

struct RunResult
{
    int load_param = 0, load_model = 0, forward = 0;
    long allocations = 0;
    long injected = 0;
    Mat out;
};

// weights: nullptr to make them (and record them there), else to replay them
RunResult run_once(const std::string& param, const Mat& in, long fail_at, std::vector<Mat>* record,
                   const std::vector<Mat>* weights)
{
    RunResult r;
    Injector inj;
    inj.fail_at = fail_at;
    {
        Net net;
        net.opt.num_threads = 1;
        tools::RandomModelBin random(seed());
        Recorder rec(random);
        std::vector<Mat> none;
        Replay replay(weights ? *weights : none);
        set_allocation_hook(inject, &inj);
        r.load_param = net.load_param_mem(param.c_str());
        if (r.load_param == 0)
        {
            if (weights)
                r.load_model = net.load_model(replay);
            else
            {
                set_allocation_hook(nullptr, nullptr); // counted in the replays only
                random.follow_graph(net);
                r.load_model = net.load_model(rec);
                *record = rec.mats;
                return r;
            }
        }
        if (r.load_param == 0 && r.load_model == 0)
        {
            Extractor ex = net.create_extractor();
            r.forward = ex.input(net.input_indexes()[0], in);
            if (r.forward == 0)
                r.forward = ex.extract(net.output_indexes()[0], r.out);
        }
        set_allocation_hook(nullptr, nullptr);
        r.out = r.out.clone(); // off the Net's allocators before it goes
    }
    r.allocations = inj.count.load();
    r.injected = inj.failed.load();
    return r;
}

bool same_output(const Mat& a, const Mat& b)
{
    if (a.dims != b.dims || a.w != b.w || a.h != b.h || a.d != b.d || a.c != b.c)
        return false;
    for (int q = 0; q < a.c; q++)
    {
        const float* pa = a.channel(q);
        const float* pb = b.channel(q);
        for (size_t i = 0; i < (size_t)a.w * a.h * a.d; i++)
            if (!(std::fabs(pa[i] - pb[i]) <= 1e-3f * std::fmax(1.f, std::fabs(pb[i]))))
                return false;
    }
    return true;
}

std::vector<long> points_to_run(long total)
{
    const char* s = getenv("KITE_OOM_MAX_POINTS");
    long limit = s ? atol(s) : 2000;
    std::vector<long> pts;
    if (limit <= 0 || total <= limit)
    {
        for (long n = 1; n <= total; n++)
            pts.push_back(n);
        return pts;
    }
    const long edge = 300;
    for (long n = 1; n <= edge; n++)
        pts.push_back(n);
    const long middle = limit - 2 * edge;
    for (long k = 1; k <= middle; k++)
        pts.push_back(edge + (total - 2 * edge) * k / (middle + 1));
    for (long n = total - edge + 1; n <= total; n++)
        pts.push_back(n);
    return pts;
}

void oom_graph(const Graph& g)
{
    const char* dir = getenv("KITE_SHARED_DIR");
    std::string param = read_text(std::string(dir ? dir : "../shared") + "/models/ncnn/" + g.name + ".param");
    if (param.empty())
        GTEST_SKIP() << g.name << ".param not found in KITE_SHARED_DIR/models/ncnn";
    if (strcmp(g.name, "vision_transformer") == 0)
        param = shrink_vit(param);
    reseed(20);
    Mat in = RandomMat(g.w, g.h, 3);

    std::vector<Mat> weights;
    RunResult made = run_once(param, in, 0, &weights, nullptr);
    ASSERT_EQ(made.load_param, 0) << g.name;
    ASSERT_EQ(made.load_model, 0) << g.name;
    ASSERT_FALSE(weights.empty()) << g.name;
    RunResult base = run_once(param, in, 0, nullptr, &weights);
    ASSERT_EQ(base.load_param, 0) << g.name;
    ASSERT_EQ(base.load_model, 0) << g.name;
    ASSERT_EQ(base.forward, 0) << g.name;
    ASSERT_GT(base.allocations, 10) << g.name;

    std::vector<long> pts = points_to_run(base.allocations);
    long ok = 0, oom = 0, other = 0, wrong = 0, missed = 0;
    std::string first_problem;
    set_log_sink(quiet_sink, nullptr);
    for (long n : pts)
    {
        RunResult r = run_once(param, in, n, nullptr, &weights);
        std::string problem;
        const int rc = r.load_param ? r.load_param : r.load_model ? r.load_model : r.forward;
        const char* step = r.load_param ? "load_param" : r.load_model ? "load_model" : "forward";
        if (r.injected == 0)
            missed++; // the run made fewer allocations than the counting run: fine if it succeeded
        if (rc == 0)
        {
            ok++;
            if (!same_output(r.out, base.out))
            {
                wrong++;
                problem = "succeeded with a different output";
            }
        }
        else if (rc == -100)
            oom++;
        else
        {
            other++;
            problem = std::string(step) + " returned " + std::to_string(rc) + " instead of -100";
        }
        if (!problem.empty() && first_problem.empty())
            first_problem = "allocation " + std::to_string(n) + " failing: " + problem;
    }
    set_log_sink(nullptr, nullptr);
    printf("oom %-20s %ld allocations per run, %zu failure points%s: %ld returned -100, %ld succeeded "
           "(%ld with a wrong output), %ld other codes\n",
           g.name, base.allocations, pts.size(), (long)pts.size() < base.allocations ? " (sampled)" : "", oom, ok, wrong,
           other);
    EXPECT_EQ(other, 0) << g.name << ": " << first_problem;
    EXPECT_EQ(wrong, 0) << g.name << ": " << first_problem;
    EXPECT_GT(oom, 0) << g.name << ": no injected failure was reported";
}

} // namespace

TEST(OutOfMemory, squeezenet) { oom_graph({"squeezenet", 48, 48}); }
TEST(OutOfMemory, mobilenet_ssd) { oom_graph({"mobilenet_ssd", 96, 96}); }
TEST(OutOfMemory, yolov4_tiny) { oom_graph({"yolov4-tiny", 96, 96}); }
TEST(OutOfMemory, vision_transformer) { oom_graph({"vision_transformer", 64, 64}); }

// GPU device memory (Vulkan vkAllocateMemory, OpenCL buffers and images):
// squeezenet 48x48 with the Nth device allocation of load + forward failing.
// Each run must fail cleanly (-100 or -1, with a message) or succeed with the
// counting run's output (a layer that fell back to the CPU); never crash or
// leak. Up to KITE_OOM_GPU_MAX_POINTS (default 400; 0: no limit) every
// point runs, past it the first and last 15 and evenly spaced ones between.
// (lavapipe: 18 device allocations per run, PoCL: 151.)
namespace {

void oom_gpu(int backend)
{
    const char* dir = getenv("KITE_SHARED_DIR");
    std::string param = read_text(std::string(dir ? dir : "../shared") + "/models/ncnn/squeezenet.param");
    if (param.empty())
        GTEST_SKIP() << "squeezenet.param not found in KITE_SHARED_DIR/models/ncnn";
    Option probe;
    probe.use_vulkan_compute = backend == BACKEND_VULKAN;
    probe.use_opencl = backend == BACKEND_OPENCL;
    if (!gpu_backend_usable(backend, probe))
        GTEST_SKIP() << "no usable device for backend " << backend;
    reseed(21);
    Mat in = RandomMat(48, 48, 3);
    std::vector<Mat> weights;
    {
        Net net;
        tools::RandomModelBin random(seed());
        Recorder rec(random);
        ASSERT_EQ(net.load_param_mem(param.c_str()), 0);
        random.follow_graph(net);
        ASSERT_EQ(net.load_model(rec), 0);
        weights = rec.mats;
    }
    // held: the device memory kite holds (gpu_memory_in_use) after the forward
    auto run = [&](long fail_at, Mat& out, long* count, bool* on_gpu, size_t* held = nullptr) {
        Injector inj;
        inj.fail_at = fail_at;
        Net net;
        net.opt.num_threads = 1;
        net.opt.use_vulkan_compute = backend == BACKEND_VULKAN;
        net.opt.use_opencl = backend == BACKEND_OPENCL;
        Replay replay(weights);
        int rc = net.load_param_mem(param.c_str());
        set_gpu_allocation_hook(inject, &inj);
        if (rc == 0)
            rc = net.load_model(replay);
        if (rc == 0)
        {
            Extractor ex = net.create_extractor();
            rc = ex.input(net.input_indexes()[0], in);
            if (rc == 0)
                rc = ex.extract(net.output_indexes()[0], out);
            if (on_gpu)
            {
                *on_gpu = false;
                for (size_t i = 0; i < net.layers().size(); i++)
                    *on_gpu = *on_gpu || ex.layer_backend((int)i) == backend;
            }
            if (held)
                *held = gpu_memory_in_use();
        }
        set_gpu_allocation_hook(nullptr, nullptr);
        *count = inj.count.load();
        out = out.clone();
        return rc;
    };
    Mat base;
    long total = 0;
    bool on_gpu = false;
    const size_t before = gpu_memory_in_use();
    size_t held = 0;
    ASSERT_EQ(run(0, base, &total, &on_gpu, &held), 0);
    ASSERT_TRUE(on_gpu) << "no layer ran on the GPU backend";
    // the accounting of gpu_memory_in_use: the net's weights and blobs while
    // it lives, back to what the device keeps itself once it is gone
    const size_t idle = gpu_memory_in_use();
    EXPECT_GT(held, before) << "gpu_memory_in_use() did not see the net's device memory";
    EXPECT_LT(idle, held) << "the net's device memory was not counted as freed with it";
    ASSERT_GT(total, 0) << "no device allocation seen: the hook is not reached";

    const char* s = getenv("KITE_OOM_GPU_MAX_POINTS");
    const long limit = s ? atol(s) : 400;
    const long step = limit > 40 && total > 30 ? (total - 30) / (limit - 30) + 1 : 10;
    std::vector<long> pts;
    for (long n = 1; n <= total; n++)
        if (limit <= 0 || total <= limit || n <= 15 || n > total - 15 || (n - 15) % step == 0)
            pts.push_back(n);
    long ok = 0, failed = 0, other = 0, wrong = 0;
    std::string first_problem;
    set_log_sink(quiet_sink, nullptr);
    for (long n : pts)
    {
        Mat out;
        long count = 0;
        const int rc = run(n, out, &count, nullptr);
        if (rc == 0)
        {
            ok++;
            if (!same_output(out, base))
            {
                wrong++;
                if (first_problem.empty())
                    first_problem = "device allocation " + std::to_string(n) + " failing: succeeded with a different output";
            }
        }
        else if (rc == -100 || rc == -1)
            failed++;
        else
        {
            other++;
            if (first_problem.empty())
                first_problem = "device allocation " + std::to_string(n) + " failing: returned " + std::to_string(rc);
        }
    }
    set_log_sink(nullptr, nullptr);
    const size_t idle_after = gpu_memory_in_use();
    printf("oom %-7s squeezenet  %ld device allocations per run, %zu failure points%s: %ld failed cleanly, %ld succeeded "
           "(%ld with a wrong output), %ld other codes; device memory held: %zu kB before, %zu kB with the net, %zu kB "
           "after it, %zu kB after the failure runs\n",
           backend == BACKEND_VULKAN ? "vulkan" : "opencl", total, pts.size(), (long)pts.size() < total ? " (sampled)" : "",
           failed, ok, wrong, other, before / 1024, held / 1024, idle / 1024, idle_after / 1024);
    // no device memory left behind by the runs that failed part-way
    EXPECT_LE(idle_after, idle) << "device memory grew over the failure runs";
    EXPECT_EQ(other, 0) << first_problem;
    EXPECT_EQ(wrong, 0) << first_problem;
}

} // namespace

TEST(OutOfMemory, vulkan_squeezenet) { oom_gpu(BACKEND_VULKAN); }
TEST(OutOfMemory, opencl_squeezenet) { oom_gpu(BACKEND_OPENCL); }

// Under AddressSanitizer the KITE_MALLOC_OVERREAD bytes past a fast_malloc
// block are poisoned, so a read past the data is reported (issue 20)
#if defined(__SANITIZE_ADDRESS__)
#define KITE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KITE_TEST_ASAN 1
#endif
#endif
#ifdef KITE_TEST_ASAN
#include <sanitizer/asan_interface.h>
TEST(OutOfMemory, sanitizer_poisons_the_padding)
{
    for (size_t size : {1, 4, 63, 64, 1000})
    {
        unsigned char* p = (unsigned char*)fast_malloc(size);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(__asan_address_is_poisoned(p + size - 1), 0) << size;
        EXPECT_EQ(__asan_address_is_poisoned(p + size), 1) << size;
        EXPECT_EQ(__asan_address_is_poisoned(p + size + KITE_MALLOC_OVERREAD - 1), 1) << size;
        fast_free(p);
    }
}
#endif
