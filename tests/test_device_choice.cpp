// device=auto (src/device_choice.h): the candidates are timed and the fastest
// kept, the choice is cached under a key that changes with the model, the
// inputs and the options, a cached choice is read back without timing, a
// backend that cannot run the model is no candidate, a damaged cache file is
// ignored, and a model without input shapes is refused. Which backend wins
// depends on the machine (lavapipe and PoCL in CI), so the test checks that
// the choice is the fastest of what was timed, not a fixed answer.
#include "testutil.h"

#include "device_choice.h"
#include "layer.h"
#include "net.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kite;

namespace {

const char* kParam =
    "7767517\n"
    "4 4\n"
    "Input data 0 1 data 0=17 1=13 2=3\n"
    "Convolution conv 1 1 data c1 0=8 1=3 4=1 5=1 6=216 9=1\n"
    "ConvolutionDepthWise dw 1 1 c1 c2 0=8 1=3 4=1 5=1 6=72 7=8\n"
    "Pooling pool 1 1 c2 out 0=1 4=1\n";

struct TempDir
{
    std::string path;
    TempDir()
    {
        char tmpl[] = "/tmp/kite_device_choice_XXXXXX";
        const char* p = mkdtemp(tmpl);
        path = p ? p : "";
    }
    ~TempDir()
    {
        if (!path.empty())
        {
            std::string cmd = "rm -rf '" + path + "'";
            if (system(cmd.c_str()) != 0)
                fprintf(stderr, "cannot remove %s\n", path.c_str());
        }
    }
};

std::string write_file(const std::string& path, const std::string& text)
{
    std::ofstream f(path, std::ios::binary);
    f << text;
    return path;
}

std::string read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

NetLoader mem_loader(const std::string& param)
{
    return [param](Net& n) -> int {
        int r = n.load_param_mem(param.c_str());
        return r != 0 ? r : n.load_model_empty();
    };
}

// the choice is the fastest candidate that ran
void expect_fastest(const DeviceChoice& c)
{
    ASSERT_FALSE(c.candidates.empty());
    EXPECT_EQ(c.candidates[0].backend, BACKEND_CPU);
    double best = -1;
    int best_backend = -1, best_device = -1;
    for (const DeviceCandidate& d : c.candidates)
    {
        if (d.status != 0)
        {
            EXPECT_LT(d.ms, 0) << d.description;
            continue;
        }
        EXPECT_GE(d.ms, 0) << d.description;
        if (best < 0 || d.ms < best)
        {
            best = d.ms;
            best_backend = d.backend;
            best_device = d.device;
        }
    }
    EXPECT_EQ(c.backend, best_backend) << c.summary();
    EXPECT_EQ(c.device, best_device) << c.summary();
}

} // namespace

TEST(DeviceChoice, Hash)
{
    std::vector<unsigned char> a(3 * 1024 * 1024 + 5);
    for (size_t i = 0; i < a.size(); i++)
        a[i] = (unsigned char)(i * 131 + 7);
    const uint64_t h = hash_bytes(a.data(), a.size());
    EXPECT_EQ(h, hash_bytes(a.data(), a.size()));
    EXPECT_NE(h, hash_bytes(a.data(), a.size(), 1));
    EXPECT_NE(h, hash_bytes(a.data(), a.size() - 1));
    std::vector<unsigned char> b = a;
    b.back() ^= 1;
    EXPECT_NE(h, hash_bytes(b.data(), b.size()));
    b = a;
    b[12345] ^= 0x80;
    EXPECT_NE(h, hash_bytes(b.data(), b.size()));

    TempDir t;
    ASSERT_FALSE(t.path.empty());
    const std::string f1 = write_file(t.path + "/a", std::string(a.begin(), a.end()));
    const std::string f2 = write_file(t.path + "/b", std::string(b.begin(), b.end()));
    EXPECT_NE(hash_file(f1.c_str()), 0u);
    EXPECT_EQ(hash_file(f1.c_str()), hash_file(f1.c_str()));
    EXPECT_NE(hash_file(f1.c_str()), hash_file(f2.c_str()));
    EXPECT_EQ(hash_file((t.path + "/missing").c_str()), 0u);
}

TEST(DeviceChoice, TimesCachesAndReadsBack)
{
    TempDir t;
    ASSERT_FALSE(t.path.empty());
    Option opt;
    opt.num_threads = 1;
    DeviceChoiceSettings s;
    s.cache_dir = t.path + "/cache"; // created on the first write
    s.warmup = 1;
    s.runs = 2;

    DeviceChoice c1;
    ASSERT_EQ(choose_device(42, opt, mem_loader(kParam), {}, c1, s), 0);
    EXPECT_FALSE(c1.from_cache);
    expect_fastest(c1);
    EXPECT_EQ(c1.cache_file, s.cache_dir + "/device-choice.txt");
    const std::string text = read_file(c1.cache_file);
    EXPECT_NE(text.find(c1.key + "\t"), std::string::npos) << text;
    EXPECT_NE(c1.summary().find(" ms"), std::string::npos) << c1.summary();

    // the same key: read back, nothing timed
    DeviceChoice c2;
    ASSERT_EQ(choose_device(42, opt, mem_loader(kParam), {}, c2, s), 0);
    EXPECT_TRUE(c2.from_cache);
    EXPECT_EQ(c2.key, c1.key);
    EXPECT_EQ(c2.backend, c1.backend);
    EXPECT_EQ(c2.device, c1.device);
    for (const DeviceCandidate& d : c2.candidates)
        EXPECT_LT(d.ms, 0) << "a cached choice times nothing: " << d.description;
    EXPECT_NE(c2.summary().find("cached"), std::string::npos) << c2.summary();

    // the key changes with the model, the inputs and the options
    DeviceChoice c3;
    ASSERT_EQ(choose_device(43, opt, mem_loader(kParam), {}, c3, s), 0);
    EXPECT_FALSE(c3.from_cache);
    EXPECT_NE(c3.key, c1.key);

    Mat in(9, 11, 3);
    in.fill(0.5f);
    DeviceChoice c4;
    ASSERT_EQ(choose_device(42, opt, mem_loader(kParam), {{"data", in}}, c4, s), 0);
    EXPECT_FALSE(c4.from_cache) << "another input shape is another key";
    EXPECT_NE(c4.key, c1.key);

    Option fp16 = opt;
    fp16.use_fp16_storage = !opt.use_fp16_storage;
    DeviceChoice c5;
    ASSERT_EQ(choose_device(42, fp16, mem_loader(kParam), {}, c5, s), 0);
    EXPECT_FALSE(c5.from_cache);

    // both keys are in the file, the first still read back
    DeviceChoice c6;
    ASSERT_EQ(choose_device(42, opt, mem_loader(kParam), {}, c6, s), 0);
    EXPECT_TRUE(c6.from_cache);

    // refresh times again and rewrites the line (one line per key)
    DeviceChoiceSettings r = s;
    r.refresh = true;
    DeviceChoice c7;
    ASSERT_EQ(choose_device(42, opt, mem_loader(kParam), {}, c7, r), 0);
    EXPECT_FALSE(c7.from_cache);
    expect_fastest(c7);
    const std::string after = read_file(c7.cache_file);
    size_t n = 0;
    for (size_t p = after.find(c1.key + "\t"); p != std::string::npos; p = after.find(c1.key + "\t", p + 1))
        n++;
    EXPECT_EQ(n, 1u) << after;

    // no cache
    DeviceChoiceSettings off = s;
    off.cache_dir = "off";
    DeviceChoice c8;
    ASSERT_EQ(choose_device(42, opt, mem_loader(kParam), {}, c8, off), 0);
    EXPECT_FALSE(c8.from_cache);
    EXPECT_TRUE(c8.cache_file.empty());
}

TEST(DeviceChoice, DamagedCacheIsIgnored)
{
    TempDir t;
    ASSERT_FALSE(t.path.empty());
    Option opt;
    DeviceChoiceSettings s;
    s.cache_dir = t.path;
    s.runs = 1;
    DeviceChoice c;
    ASSERT_EQ(choose_device(7, opt, mem_loader(kParam), {}, c, s), 0);
    // the key with a backend kite does not know, a device out of range, a
    // line without tabs and binary junk: none is a choice
    write_file(c.cache_file, c.key + "\tquantum 0\t\n" + c.key + "\tvulkan 99999\t\nno tabs here\n\x01\x02\xff\n" + c.key);
    DeviceChoice d;
    ASSERT_EQ(choose_device(7, opt, mem_loader(kParam), {}, d, s), 0);
    EXPECT_FALSE(d.from_cache);
    expect_fastest(d);
    DeviceChoice e;
    ASSERT_EQ(choose_device(7, opt, mem_loader(kParam), {}, e, s), 0);
    EXPECT_TRUE(e.from_cache) << "the damaged file was rewritten with the new choice";
}

TEST(DeviceChoice, BackendThatCannotRunIsNoCandidate)
{
    Option opt;
    DeviceChoiceSettings s;
    s.cache_dir = "off";
    s.runs = 1;
    // the GPU loads fail: the CPU wins whatever the GPUs would have done
    NetLoader cpu_only = [](Net& n) -> int {
        if (n.opt.use_vulkan_compute || n.opt.use_opencl)
            return -1;
        int r = n.load_param_mem(kParam);
        return r != 0 ? r : n.load_model_empty();
    };
    DeviceChoice c;
    ASSERT_EQ(choose_device(1, opt, cpu_only, {}, c, s), 0);
    EXPECT_EQ(c.backend, BACKEND_CPU);
    for (size_t i = 1; i < c.candidates.size(); i++)
        EXPECT_NE(c.candidates[i].status, 0) << c.candidates[i].description;
    expect_fastest(c);

    // an input the model cannot take: no candidate runs, an error
    Mat bad(5, 5, 7);
    bad.fill(1.f);
    DeviceChoice d;
    EXPECT_NE(choose_device(1, opt, cpu_only, {{"no_such_blob", bad}}, d, s), 0);
}

TEST(DeviceChoice, InputWithoutShapeIsRefused)
{
    const char* noshape = "7767517\n2 2\nInput data 0 1 data\nReLU r 1 1 data out\n";
    Option opt;
    DeviceChoiceSettings s;
    s.cache_dir = "off";
    DeviceChoice c;
    EXPECT_NE(choose_device(1, opt, mem_loader(noshape), {}, c, s), 0);
    // with an example input it runs
    Mat in(4, 3, 2);
    in.fill(-1.f);
    EXPECT_EQ(choose_device(1, opt, mem_loader(noshape), {{"data", in}}, c, s), 0);
    expect_fastest(c);
}

TEST(DeviceChoice, FilesAndApply)
{
    TempDir t;
    ASSERT_FALSE(t.path.empty());
    const std::string param = write_file(t.path + "/m.param", kParam);
    Option opt;
    DeviceChoiceSettings s;
    s.cache_dir = t.path;
    s.runs = 1;
    DeviceChoice c;
    ASSERT_EQ(choose_device(param.c_str(), nullptr, opt, {}, c, s), 0);
    expect_fastest(c);
    DeviceChoice again;
    ASSERT_EQ(choose_device(param.c_str(), "", opt, {}, again, s), 0);
    EXPECT_TRUE(again.from_cache);
    // the model file changes: another key
    write_file(param, std::string(kParam) + "\n");
    DeviceChoice changed;
    ASSERT_EQ(choose_device(param.c_str(), nullptr, opt, {}, changed, s), 0);
    EXPECT_FALSE(changed.from_cache);
    EXPECT_NE(choose_device((t.path + "/missing.param").c_str(), nullptr, opt, {}, c, s), 0);

    Option o;
    DeviceChoice v;
    v.backend = BACKEND_VULKAN;
    v.device = 1;
    apply_device_choice(v, o);
    EXPECT_TRUE(o.use_vulkan_compute);
    EXPECT_FALSE(o.use_opencl);
    EXPECT_EQ(o.vulkan_device, 1);
    DeviceChoice cl;
    cl.backend = BACKEND_OPENCL;
    cl.device = 2;
    apply_device_choice(cl, o);
    EXPECT_FALSE(o.use_vulkan_compute);
    EXPECT_TRUE(o.use_opencl);
    EXPECT_EQ(o.opencl_device, 2);
    apply_device_choice(DeviceChoice(), o);
    EXPECT_FALSE(o.use_vulkan_compute || o.use_opencl);
}
