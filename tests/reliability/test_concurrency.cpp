// One Net, many threads (issue 20): 8 threads each make and run Extractors on
// the same Net at once, with mixed input shapes, light mode on and off, 1 or 2
// OpenMP threads per Extractor and the three kinds of blob allocator (the
// default, one PoolAllocator shared by all threads, a thread's own
// UnlockedPoolAllocator). Every output must equal the one a single Extractor
// computed for that shape before the threads started (bit for bit on the CPU,
// within 1e-4 on a GPU backend).
//
// It runs on the CPU once per ISA row this CPU has (max_cpu_isa), then on
// Vulkan and OpenCL where a device is usable (lavapipe / PoCL in CI). In the
// Release suite it is an ordinary test; CI's ThreadSanitizer step (.ci/run
// "tsan") runs it again in a TSan build, where any data race fails it.
//
// Graphs: squeezenet and mobilenet_v2 from the shared folder with seeded
// random weights (skipped when the folder is missing). KITE_CONCURRENCY_RUNS
// sets the Extractors per thread (default 3).
#include "testutil.h"

#include "allocator.h"
#include "common/random_modelbin.h"
#include "cpu.h"
#include "gpu/gpu.h"
#include "layer.h"
#include "net.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

std::string shared_model(const char* name)
{
    const char* dir = getenv("KITE_SHARED_DIR");
    std::string p = std::string(dir ? dir : "../shared") + "/models/ncnn/" + name + ".param";
    FILE* f = fopen(p.c_str(), "rb");
    if (!f)
        return "";
    fclose(f);
    return p;
}

int runs_per_thread()
{
    const char* s = getenv("KITE_CONCURRENCY_RUNS");
    int n = s ? atoi(s) : 3;
    return n > 0 ? n : 3;
}

struct Shape
{
    int w, h;
};

// compare a to b: bit-identical (tol 0) or |a-b| <= tol * max(1, |b|)
bool same(const Mat& a, const Mat& b, float tol)
{
    if (a.dims != b.dims || a.w != b.w || a.h != b.h || a.c != b.c || a.elemsize != 4 || b.elemsize != 4)
        return false;
    for (int q = 0; q < a.c; q++)
    {
        const float* pa = a.channel(q);
        const float* pb = b.channel(q);
        size_t n = (size_t)a.w * a.h * a.d;
        if (tol == 0.f)
        {
            if (memcmp(pa, pb, n * sizeof(float)) != 0)
                return false;
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (!(std::fabs(pa[i] - pb[i]) <= tol * std::fmax(1.f, std::fabs(pb[i]))))
                return false;
    }
    return true;
}

// Loads `graph` on the given backend / ISA, computes one reference output per
// shape, then runs 8 threads of Extractors and counts failures and mismatches.
void run_threads(const char* graph, int backend, int max_isa)
{
    std::string param = shared_model(graph);
    if (param.empty())
        GTEST_SKIP() << graph << ".param not found in KITE_SHARED_DIR/models/ncnn";

    Net net;
    net.opt.max_cpu_isa = max_isa;
    net.opt.use_vulkan_compute = backend == BACKEND_VULKAN;
    net.opt.use_opencl = backend == BACKEND_OPENCL;
    ASSERT_EQ(net.load_param(param.c_str()), 0) << graph;
    tools::RandomModelBin mb(seed());
    mb.follow_graph(net);
    ASSERT_EQ(net.load_model(mb), 0) << graph;
    const int in_blob = net.input_indexes()[0];
    const int out_blob = net.output_indexes()[0];

    if (backend != BACKEND_CPU)
    {
        // the GPU backend must really run layers, else this repeats the CPU test
        Extractor ex = net.create_extractor();
        Mat in = RandomMat(48, 48, 3);
        Mat out;
        ASSERT_EQ(ex.input(in_blob, in), 0);
        ASSERT_EQ(ex.extract(out_blob, out), 0);
        int on_gpu = 0;
        for (size_t i = 0; i < net.layers().size(); i++)
            on_gpu += ex.layer_backend((int)i) == backend;
        ASSERT_GT(on_gpu, 0) << graph << ": no layer ran on backend " << backend;
    }

    const Shape shapes[] = {{48, 48}, {57, 41}, {64, 64}, {35, 70}};
    const int nshapes = sizeof(shapes) / sizeof(shapes[0]);
    std::vector<Mat> inputs, refs;
    for (int s = 0; s < nshapes; s++)
    {
        reseed(100 + s);
        inputs.push_back(RandomMat(shapes[s].w, shapes[s].h, 3));
        Extractor ex = net.create_extractor();
        ex.set_num_threads(1);
        Mat out;
        ASSERT_EQ(ex.input(in_blob, inputs[s]), 0);
        ASSERT_EQ(ex.extract(out_blob, out), 0) << graph << " shape " << shapes[s].w << "x" << shapes[s].h;
        refs.push_back(out.clone());
    }
    const float tol = backend == BACKEND_CPU ? 0.f : 1e-4f;

    const int nthreads = 8;
    const int runs = runs_per_thread();
    std::atomic<int> failures(0), mismatches(0);
    std::vector<std::string> first_error(nthreads);
    PoolAllocator shared_pool;
    std::vector<std::thread> threads;
    for (int t = 0; t < nthreads; t++)
    {
        threads.emplace_back([&, t]() {
            UnlockedPoolAllocator own_pool;
            UnlockedPoolAllocator own_workspace;
            for (int i = 0; i < runs; i++)
            {
                const int k = t * runs + i; // mixes shapes, modes and allocators over the threads
                const int s = k % nshapes;
                Extractor ex = net.create_extractor();
                ex.set_light_mode(k % 2 == 0);
                ex.set_num_threads(1 + (k / 2) % 2);
                if (k % 3 == 1)
                    ex.set_blob_allocator(&shared_pool);
                else if (k % 3 == 2)
                {
                    ex.set_blob_allocator(&own_pool);
                    ex.set_workspace_allocator(&own_workspace);
                }
                Mat out;
                if (ex.input(in_blob, inputs[s]) != 0 || ex.extract(out_blob, out) != 0)
                {
                    failures++;
                    if (first_error[t].empty())
                        first_error[t] = "run " + std::to_string(i) + " failed";
                    continue;
                }
                if (!same(out, refs[s], tol))
                {
                    mismatches++;
                    if (first_error[t].empty())
                        first_error[t] = "run " + std::to_string(i) + " (shape " + std::to_string(shapes[s].w) + "x"
                                         + std::to_string(shapes[s].h) + ", light " + std::to_string(k % 2 == 0)
                                         + ", threads " + std::to_string(1 + (k / 2) % 2) + ") differs";
                }
            }
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(failures.load(), 0) << graph;
    EXPECT_EQ(mismatches.load(), 0) << graph << " (seed " << seed() << ")";
    for (int t = 0; t < nthreads; t++)
        EXPECT_TRUE(first_error[t].empty()) << graph << " thread " << t << ": " << first_error[t];
}

// the CPU ISA rows this CPU runs, best first, the reference last
std::vector<int> cpu_isas()
{
    std::vector<int> isas;
    const int best = cpu_best_isa();
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
    for (int isa : {(int)CPU_ISA_AVX512, (int)CPU_ISA_AVX2, (int)CPU_ISA_AVX, (int)CPU_ISA_SSE2})
        if (isa <= best)
            isas.push_back(isa);
#else
    for (int isa : {(int)CPU_ISA_ARM82, (int)CPU_ISA_NEON})
        if (isa <= best)
            isas.push_back(isa);
#endif
    isas.push_back(CPU_ISA_NONE);
    return isas;
}

} // namespace

TEST(Concurrency, cpu_every_isa)
{
    for (const char* graph : {"squeezenet", "mobilenet_v2"})
        for (int isa : cpu_isas())
        {
            SCOPED_TRACE(std::string(graph) + " on " + layer_row_name(BACKEND_CPU, isa));
            run_threads(graph, BACKEND_CPU, isa);
            if (HasFatalFailure() || IsSkipped())
                return;
        }
}

TEST(Concurrency, vulkan)
{
    Option opt;
    opt.use_vulkan_compute = true;
    if (!gpu_backend_usable(BACKEND_VULKAN, opt))
        GTEST_SKIP() << "no usable Vulkan device";
    run_threads("squeezenet", BACKEND_VULKAN, -1);
}

TEST(Concurrency, opencl)
{
    Option opt;
    opt.use_opencl = true;
    if (!gpu_backend_usable(BACKEND_OPENCL, opt))
        GTEST_SKIP() << "no usable OpenCL device";
    run_threads("squeezenet", BACKEND_OPENCL, -1);
}
