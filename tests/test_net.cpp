// Net / Extractor tests on small models built in memory: every way of loading
// param and weights, input/extract by name and index, light mode, custom
// layers (also overriding a built-in type), the reference fallback, many
// Extractors on one Net from several threads, per-Extractor threads, and the
// error cases a malformed model must report.
#include "testutil.h"

#include "cpu.h"
#include "datareader.h"
#include "log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

// ---------------------------------------------------------------------------
// log capture

std::mutex g_log_mutex;
std::vector<std::string>* g_log = nullptr;
void capture_log(int level, const char* msg, void*)
{
    std::lock_guard<std::mutex> lock(g_log_mutex);
    if (g_log && level == LOG_ERROR)
        g_log->push_back(msg);
}

struct LogCapture
{
    std::vector<std::string> lines;
    std::vector<std::string>* prev;
    LogCapture() : prev(g_log)
    {
        g_log = &lines;
        set_log_sink(capture_log, nullptr);
    }
    ~LogCapture()
    {
        g_log = prev;
        if (!prev)
            set_log_sink(nullptr, nullptr);
    }
    std::string all() const
    {
        std::string s;
        for (const auto& l : lines)
            s += l + "\n";
        return s;
    }
    bool has(const std::string& what) const { return all().find(what) != std::string::npos; }
};

// ---------------------------------------------------------------------------
// test layers

// y = x * scale[c] + bias[c]; weights: scale (type 0), bias (type 1). Not in place.
class TestAffine : public Layer
{
public:
    TestAffine() { one_blob_only = true; }
    int load_param(const ParamDict& pd) override
    {
        n = pd.get(0, 0);
        return n > 0 ? 0 : -1;
    }
    int load_model(const ModelBin& mb) override
    {
        scale = mb.load(n, 0);
        bias = mb.load(n, 1);
        return scale.empty() || bias.empty() ? -100 : 0;
    }
    int forward(const Mat& bottom, Mat& top, const Option& opt) const override
    {
        if (bottom.dims != 3 || bottom.c != n)
            return -1;
        top.create(bottom.w, bottom.h, bottom.c, (size_t)4u, opt.blob_allocator);
        if (top.empty())
            return -100;
        for (int q = 0; q < n; q++)
        {
            const float* x = (const float*)bottom.channel(q).data;
            float* y = (float*)top.channel(q).data;
            for (int i = 0; i < bottom.w * bottom.h; i++)
                y[i] = x[i] * scale[q] + bias[q];
        }
        return 0;
    }
    int n = 0;
    Mat scale, bias;
};
Layer* affine_creator(void*) { return new TestAffine; }

// two inputs, one output: their sum
class TestAdd : public Layer
{
public:
    int forward(const std::vector<Mat>& bottoms, std::vector<Mat>& tops, const Option& opt) const override
    {
        if (bottoms.size() != 2 || tops.size() != 1)
            return -1;
        const Mat& a = bottoms[0];
        const Mat& b = bottoms[1];
        if (a.total() != b.total())
            return -1;
        Mat& t = tops[0];
        t.create(a.w, a.h, a.c, (size_t)4u, opt.blob_allocator);
        if (t.empty())
            return -100;
        for (size_t i = 0; i < a.total(); i++)
            t[i] = a[i] + b[i];
        return 0;
    }
};
Layer* add_creator(void*) { return new TestAdd; }

// doubles its input in place
class TestDouble : public Layer
{
public:
    TestDouble()
    {
        one_blob_only = true;
        support_inplace = true;
    }
    int forward_inplace(Mat& m, const Option&) const override
    {
        const int channels = m.dims >= 3 ? m.c : 1;
        for (int q = 0; q < channels; q++)
        {
            float* p = (float*)m.data + (m.dims >= 3 ? m.cstep * q : 0);
            for (size_t i = 0; i < (size_t)m.w * m.h * m.d; i++)
                p[i] *= 2.f;
        }
        return 0;
    }
};
Layer* double_creator(void*) { return new TestDouble; }

// replaces every value with 7 (overrides ReLU in a test)
class TestSeven : public TestDouble
{
public:
    int forward_inplace(Mat& m, const Option&) const override
    {
        m.fill(7.f);
        return 0;
    }
};
Layer* seven_creator(void*) { return new TestSeven; }
int g_destroyed = 0;
void seven_destroyer(Layer* l, void* userdata)
{
    g_destroyed += *(int*)userdata;
    delete l;
}

// records the thread count it ran with
std::atomic<int> g_seen_threads{0};
class TestProbe : public TestDouble
{
public:
    int forward_inplace(Mat&, const Option& opt) const override
    {
        g_seen_threads = opt.num_threads;
        return 0;
    }
};
Layer* probe_creator(void*) { return new TestProbe; }

// Workaround for the Input bug (see Net.builtin_input_layer_loads): when the
// built-in Input cannot be loaded, a stand-in "Input" custom layer is used so
// that everything else can still be tested.
class StandInInput : public Layer
{
};
Layer* stand_in_input_creator(void*) { return new StandInInput; }
bool builtin_input_broken()
{
    static int broken = -1;
    if (broken < 0)
    {
        LogCapture quiet;
        Net probe;
        broken = probe.load_param_mem("7767517\n1 1\nInput in0 0 1 in0 0=4\n") != 0;
    }
    return broken == 1;
}

void register_test_layers(Net& net)
{
    if (builtin_input_broken())
        net.register_custom_layer("Input", stand_in_input_creator);
    net.register_custom_layer("TestAffine", affine_creator);
    net.register_custom_layer("TestAdd", add_creator);
    net.register_custom_layer("TestDouble", double_creator);
}

// ---------------------------------------------------------------------------
// the model: out = relu(x * s + b) + (x * s + b)

const char* kParam =
    "7767517\n"
    "5 6\n"
    "Input            in0   0 1 in0 0=5 1=4 2=3\n"
    "TestAffine       aff   1 1 in0 a 0=3\n"
    "Split            sp    1 2 a a0 a1\n"
    "ReLU             relu  1 1 a0 r\n"
    "TestAdd          add   2 1 r a1 out\n";

const float kScale[3] = {0.5f, -2.f, 1.5f};
const float kBias[3] = {0.25f, 1.f, -0.75f};

std::vector<unsigned char> model_bin()
{
    std::vector<unsigned char> v(4 + 12 + 12, 0); // fp32 tag 0, scale, bias (type 1)
    memcpy(v.data() + 4, kScale, 12);
    memcpy(v.data() + 16, kBias, 12);
    return v;
}

Mat expected_output(const Mat& in, const float* s, const float* b)
{
    Mat out(in.w, in.h, in.c);
    for (int q = 0; q < in.c; q++)
        for (int i = 0; i < in.w * in.h; i++)
        {
            float a = ((const float*)in.channel(q).data)[i] * s[q] + b[q];
            ((float*)out.channel(q).data)[i] = std::max(a, 0.f) + a;
        }
    return out;
}

// the binary form of kParam: blob indices in0=0 a=1 a0=2 a1=3 r=4 out=5;
// custom layers by index | 0x100 in registration order
std::vector<int> binary_param(const Net& net_with_customs, int affine_index, int add_index)
{
    (void)net_with_customs;
    std::vector<int> v = {7767517, 5, 6};
    auto layer = [&](int type, std::vector<int> bottoms, std::vector<int> tops, std::vector<int> params) {
        v.push_back(type);
        v.push_back((int)bottoms.size());
        v.push_back((int)tops.size());
        v.insert(v.end(), bottoms.begin(), bottoms.end());
        v.insert(v.end(), tops.begin(), tops.end());
        v.insert(v.end(), params.begin(), params.end());
        v.push_back(-233);
    };
    const int input_type = builtin_input_broken() ? 0x100 : layer_to_index("Input");
    layer(input_type, {}, {0}, {0, 5, 1, 4, 2, 3});
    layer(0x100 | affine_index, {0}, {1}, {0, 3});
    layer(layer_to_index("Split"), {1}, {2, 3}, {});
    layer(layer_to_index("ReLU"), {2}, {4}, {});
    layer(0x100 | add_index, {4, 3}, {5}, {});
    return v;
}

std::string write_temp(const void* data, size_t size)
{
    char path[] = "/tmp/kite_test_net_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return "";
    if (write(fd, data, size) != (ssize_t)size)
    {
        close(fd);
        return "";
    }
    close(fd);
    return path;
}

std::string run_model(const Net& net, const Mat& in, Mat& out)
{
    Extractor ex = net.create_extractor();
    if (ex.input("in0", in) != 0)
        return "input failed";
    if (ex.extract("out", out) != 0)
        return "extract failed";
    return "";
}

std::string check_model(const Net& net, const float* s = kScale, const float* b = kBias)
{
    reseed(100);
    Mat in = RandomMat(5, 4, 3, -2.f, 2.f);
    Mat out;
    std::string r = run_model(net, in, out);
    if (!r.empty())
        return r;
    return compare_mat(out, expected_output(in, s, b), 1e-6f);
}

} // namespace

// ---------------------------------------------------------------------------

// KNOWN BUG (src/net.cpp, Net::add_layer, the one_blob_only check
// "if (layer->one_blob_only && (bottom_names.size() != 1 || top_names.size() != 1))"):
// the built-in Input layer is one_blob_only (as in ncnn) but has no input
// blob, so every model with an Input layer is rejected with "takes one input
// and one output, has 0 and 1". ncnn does not check this at load time; the
// check should skip layers without inputs (or Input). The other tests use a
// stand-in Input custom layer while this bug is present.
TEST(Net, builtin_input_layer_loads)
{
    LogCapture log;
    Net net;
    EXPECT_EQ(net.load_param_mem("7767517\n2 2\nInput in0 0 1 in0 0=4\nReLU r 1 1 in0 out\n"), 0) << log.all();
}

// Input's fixed_size (20=1, written by the converters where a model computes
// correctly only at its converted size): another shape is refused at
// Extractor::input with a message naming both; the declared one runs; without
// the flag another shape runs as before
TEST(Net, fixed_size_input_refuses_other_shapes)
{
    Net net;
    ASSERT_EQ(net.load_param_mem("7767517\n2 2\nInput in0 0 1 in0 0=5 1=4 2=3 20=1\nReLU r 1 1 in0 out\n"), 0);
    reseed(5);
    {
        LogCapture log;
        Mat other = RandomMat(6, 4, 3, -1.f, 1.f);
        Extractor ex = net.create_extractor();
        EXPECT_EQ(ex.input("in0", other), -1);
        EXPECT_NE(log.all().find("runs only at its declared input size [w=5 h=4 d=1 c=3]"), std::string::npos) << log.all();
        EXPECT_NE(log.all().find("'in0' is [w=6 h=4 d=1 c=3]"), std::string::npos) << log.all();
    }
    Mat same = RandomMat(5, 4, 3, -1.f, 1.f);
    Extractor ex2 = net.create_extractor();
    EXPECT_EQ(ex2.input("in0", same), 0);
    // a channel count of 8 given as 2 x elempack 4 is the declared 8 channels
    Net net8;
    ASSERT_EQ(net8.load_param_mem("7767517\n2 2\nInput in0 0 1 in0 0=2 1=2 2=8 20=1\nReLU r 1 1 in0 out\n"), 0);
    Mat p4(2, 2, 2, (size_t)16u, 4, nullptr);
    p4.fill(1.f);
    Extractor ex4 = net8.create_extractor();
    EXPECT_EQ(ex4.input("in0", p4), 0);
    Mat p4w(2, 2, 1, (size_t)16u, 4, nullptr);
    p4w.fill(1.f);
    Extractor ex5 = net8.create_extractor();
    EXPECT_EQ(ex5.input("in0", p4w), -1);
    // no flag: another shape runs
    Net free_net;
    ASSERT_EQ(free_net.load_param_mem("7767517\n2 2\nInput in0 0 1 in0 0=5 1=4 2=3\nReLU r 1 1 in0 out\n"), 0);
    Extractor ex6 = free_net.create_extractor();
    EXPECT_EQ(ex6.input("in0", RandomMat(7, 9, 3, -1.f, 1.f)), 0);
}

TEST(Net, load_param_file_memory_reader)
{
    std::vector<unsigned char> bin = model_bin();
    // memory
    {
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_EQ(net.layers().size(), 5u);
        EXPECT_EQ(net.blobs().size(), 6u);
        ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
        EXPECT_EQ(check_model(net), "");
    }
    // file
    {
        std::string path = write_temp(kParam, strlen(kParam));
        ASSERT_FALSE(path.empty());
        Net net;
        register_test_layers(net);
        EXPECT_EQ(net.load_param(path.c_str()), 0);
        ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
        EXPECT_EQ(check_model(net), "");
        unlink(path.c_str());
    }
    // DataReader
    {
        DataReaderFromMemory dr((const unsigned char*)kParam, strlen(kParam));
        Net net;
        register_test_layers(net);
        EXPECT_EQ(net.load_param(dr), 0);
        ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
        EXPECT_EQ(check_model(net), "");
    }
    // a missing file
    {
        LogCapture log;
        Net net;
        EXPECT_NE(net.load_param("/nonexistent/kite.param"), 0);
        EXPECT_FALSE(log.lines.empty());
    }
}

// the -23330 shape hint reaches the layers from a .param.bin as from the text
// form (drivers choose kernels by it)
TEST(Net, load_param_bin_keeps_shape_hints)
{
    const int relu = layer_to_index("ReLU");
    const int input = layer_to_index("Input");
    ASSERT_GE(relu, 0);
    ASSERT_GE(input, 0);
    // Input in0 (hint [w=7 h=5 c=3]), ReLU in0 -> x (hint [7,5,3]), ReLU x -> y (no hint)
    const std::vector<int> words = {7767517, 3, 3,
                                    input, 0, 1, 0, 0, 7, 1, 5, 2, 3, -23330, 4, 3, 7, 5, 3, -233,
                                    relu, 1, 1, 0, 1, -23330, 4, 3, 7, 5, 3, -233,
                                    relu, 1, 1, 1, 2, -233};
    DataReaderFromMemory dr((const unsigned char*)words.data(), words.size() * 4);
    Net net;
    ASSERT_EQ(net.load_param_bin(dr), 0);
    ASSERT_EQ(net.layers().size(), 3u);
    for (int li = 0; li < 2; li++)
    {
        const Layer* l = net.layers()[li];
        ASSERT_EQ(l->top_shapes.size(), 1u) << "layer " << li;
        EXPECT_EQ(l->top_shapes[0].dims, 3);
        EXPECT_EQ(l->top_shapes[0].w, 7);
        EXPECT_EQ(l->top_shapes[0].h, 5);
        EXPECT_EQ(l->top_shapes[0].c, 3);
    }
    ASSERT_EQ(net.layers()[2]->bottom_shapes.size(), 1u);
    EXPECT_EQ(net.layers()[2]->bottom_shapes[0].w, 7); // from the producer's hint
    ASSERT_EQ(net.layers()[2]->top_shapes.size(), 1u);
    EXPECT_EQ(net.layers()[2]->top_shapes[0].dims, 0); // none given
    // the same graph in text gives the same shapes
    Net text;
    ASSERT_EQ(text.load_param_mem("7767517\n3 3\nInput in0 0 1 in0 0=7 1=5 2=3 -23330=4,3,7,5,3\n"
                                  "ReLU r0 1 1 in0 x -23330=4,3,7,5,3\nReLU r1 1 1 x y\n"),
              0);
    for (int li = 0; li < 3; li++)
    {
        ASSERT_EQ(text.layers()[li]->top_shapes.size(), net.layers()[li]->top_shapes.size());
        EXPECT_EQ(text.layers()[li]->top_shapes[0].w, net.layers()[li]->top_shapes[0].w) << "layer " << li;
    }
}

TEST(Net, load_param_bin)
{
    std::vector<unsigned char> bin = model_bin();
    Net ref;
    register_test_layers(ref);
    // the custom layer indices in registration order
    const int base = builtin_input_broken() ? 1 : 0;
    std::vector<int> words = binary_param(ref, base + 0, base + 1);
    {
        DataReaderFromMemory dr((const unsigned char*)words.data(), words.size() * 4);
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_bin(dr), 0);
        EXPECT_EQ(dr.remaining(), 0u);
        EXPECT_EQ(net.layers().size(), 5u);
        ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
        // blobs are addressed by index in the binary form
        Extractor ex = net.create_extractor();
        reseed(100);
        Mat in = RandomMat(5, 4, 3, -2.f, 2.f);
        ASSERT_EQ(ex.input(0, in), 0);
        Mat out;
        ASSERT_EQ(ex.extract(5, out), 0);
        EXPECT_EQ(compare_mat(out, expected_output(in, kScale, kBias), 1e-6f), "");
    }
    {
        std::string path = write_temp(words.data(), words.size() * 4);
        Net net;
        register_test_layers(net);
        EXPECT_EQ(net.load_param_bin(path.c_str()), 0);
        unlink(path.c_str());
    }
    // truncated at every word: an error, never a crash
    for (size_t n = 0; n < words.size(); n++)
    {
        LogCapture log;
        DataReaderFromMemory dr((const unsigned char*)words.data(), n * 4);
        Net net;
        register_test_layers(net);
        EXPECT_NE(net.load_param_bin(dr), 0) << "accepted " << n << " words";
        EXPECT_TRUE(net.layers().empty());
    }
    // a custom layer index that is not registered
    {
        LogCapture log;
        DataReaderFromMemory dr((const unsigned char*)words.data(), words.size() * 4);
        Net net; // nothing registered
        EXPECT_NE(net.load_param_bin(dr), 0);
    }
    // bad magic
    {
        LogCapture log;
        std::vector<int> bad = words;
        bad[0] = 7767518;
        DataReaderFromMemory dr((const unsigned char*)bad.data(), bad.size() * 4);
        Net net;
        register_test_layers(net);
        EXPECT_NE(net.load_param_bin(dr), 0);
        EXPECT_TRUE(log.has("magic")) << log.all();
    }
    // blob index out of range
    {
        LogCapture log;
        std::vector<int> bad = words;
        bad[3 + 3 + 1] = 99; // the Input layer's top blob index
        DataReaderFromMemory dr((const unsigned char*)bad.data(), bad.size() * 4);
        Net net;
        register_test_layers(net);
        EXPECT_NE(net.load_param_bin(dr), 0);
    }
}

TEST(Net, load_model_variants)
{
    std::vector<unsigned char> bin = model_bin();
    // memory: zero copy, returns the bytes consumed
    {
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_FALSE(net.model_loaded());
        size_t used = net.load_model(bin.data(), bin.size());
        EXPECT_EQ(used, bin.size());
        EXPECT_TRUE(net.model_loaded());
        const TestAffine* aff = dynamic_cast<const TestAffine*>(net.layers()[net.find_layer_index_by_name("aff")]);
        ASSERT_NE(aff, nullptr);
        EXPECT_EQ((const unsigned char*)aff->scale.data, bin.data() + 4);
        EXPECT_EQ((const unsigned char*)aff->bias.data, bin.data() + 16);
        EXPECT_EQ(check_model(net), "");
        // trailing bytes are not consumed
        std::vector<unsigned char> longer = bin;
        longer.resize(bin.size() + 8, 0xCC);
        Net net2;
        register_test_layers(net2);
        ASSERT_EQ(net2.load_param_mem(kParam), 0);
        LogCapture quiet;
        EXPECT_EQ(net2.load_model(longer.data(), longer.size()), bin.size());
    }
    // file
    {
        std::string path = write_temp(bin.data(), bin.size());
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_EQ(net.load_model(path.c_str()), 0);
        EXPECT_EQ(check_model(net), "");
        // mmap
        Net net2;
        register_test_layers(net2);
        ASSERT_EQ(net2.load_param_mem(kParam), 0);
        EXPECT_EQ(net2.load_model_mmap(path.c_str()), 0);
        EXPECT_EQ(check_model(net2), "");
        unlink(path.c_str());
        // the mapping outlives the file name
        EXPECT_EQ(check_model(net2), "");
    }
    // DataReader
    {
        DataReaderFromMemory dr(bin.data(), bin.size());
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_EQ(net.load_model(dr), 0);
        EXPECT_EQ(check_model(net), "");
    }
    // empty: zero weights, so out = relu(0) + 0 = 0
    {
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_EQ(net.load_model_empty(), 0);
        const float zeros[3] = {0, 0, 0};
        EXPECT_EQ(check_model(net, zeros, zeros), "");
    }
    // loading again replaces the weights
    {
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_EQ(net.load_model_empty(), 0);
        EXPECT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
        EXPECT_EQ(check_model(net), "");
    }
    // errors: truncated weights, missing file, no param yet
    {
        LogCapture log;
        for (size_t n = 0; n < bin.size(); n += 4)
        {
            Net net;
            register_test_layers(net);
            ASSERT_EQ(net.load_param_mem(kParam), 0);
            EXPECT_EQ(net.load_model(bin.data(), n), 0u) << "accepted " << n << " bytes";
            EXPECT_FALSE(net.model_loaded());
            Extractor ex = net.create_extractor();
            Mat in = RandomMat(5, 4, 3), out;
            ex.input("in0", in);
            EXPECT_NE(ex.extract("out", out), 0); // weights not loaded
        }
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(kParam), 0);
        EXPECT_NE(net.load_model("/nonexistent/kite.bin"), 0);
        EXPECT_NE(net.load_model_mmap("/nonexistent/kite.bin"), 0);
        Net none;
        EXPECT_NE(none.load_model(bin.data(), bin.size()), bin.size());
    }
}

TEST(Net, input_extract_by_name_and_index)
{
    std::vector<unsigned char> bin = model_bin();
    Net net;
    register_test_layers(net);
    ASSERT_EQ(net.load_param_mem(kParam), 0);
    ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
    EXPECT_EQ(net.input_names(), std::vector<std::string>({"in0"}));
    EXPECT_EQ(net.output_names(), std::vector<std::string>({"out"}));
    ASSERT_EQ(net.input_indexes().size(), 1u);
    ASSERT_EQ(net.output_indexes().size(), 1u);
    const int in_index = net.input_indexes()[0];
    const int out_index = net.output_indexes()[0];
    EXPECT_EQ(in_index, net.find_blob_index_by_name("in0"));
    EXPECT_EQ(out_index, net.find_blob_index_by_name("out"));
    EXPECT_EQ(net.find_blob_index_by_name("nope"), -1);
    EXPECT_EQ(net.find_layer_index_by_name("relu"), 3);

    reseed(11);
    Mat in = RandomMat(5, 4, 3, -2.f, 2.f);
    Mat want = expected_output(in, kScale, kBias);
    Extractor ex = net.create_extractor();
    ASSERT_EQ(ex.input(in_index, in), 0);
    Mat out;
    ASSERT_EQ(ex.extract(out_index, out), 0);
    EXPECT_EQ(compare_mat(out, want, 1e-6f), "");
    // an intermediate blob by name, from a fresh extractor
    Extractor ex2 = net.create_extractor();
    ASSERT_EQ(ex2.input("in0", in), 0);
    Mat a;
    ASSERT_EQ(ex2.extract("a", a), 0);
    for (int q = 0; q < 3; q++)
        for (int i = 0; i < 20; i++)
            ASSERT_FLOAT_EQ(((const float*)a.channel(q).data)[i], ((const float*)in.channel(q).data)[i] * kScale[q] + kBias[q]);
    // then the output from the same extractor
    ASSERT_EQ(ex2.extract("out", out), 0);
    EXPECT_EQ(compare_mat(out, want, 1e-6f), "");
    // extracting twice gives the same data
    Mat again;
    ASSERT_EQ(ex2.extract("out", again), 0);
    EXPECT_EQ(compare_mat(again, want, 1e-6f), "");
    // the input Mat itself is not modified by in-place layers
    reseed(11);
    Mat in_copy = RandomMat(5, 4, 3, -2.f, 2.f);
    EXPECT_EQ(compare_mat(in, in_copy, 0.f), "");
}

namespace {
// an allocator that counts live blocks and the peak
class CountingAllocator : public Allocator
{
public:
    std::atomic<int> live{0};
    std::atomic<int> peak{0};
    void* fastMalloc(size_t size) override
    {
        int l = ++live;
        int p = peak;
        while (l > p && !peak.compare_exchange_weak(p, l))
        {
        }
        return fast_malloc(size);
    }
    void fastFree(void* ptr) override
    {
        live--;
        fast_free(ptr);
    }
};
} // namespace

TEST(Net, light_mode_releases_intermediate_blobs)
{
    // a chain of five affine layers; each allocates its output from the blob allocator
    const char* chain =
        "7767517\n"
        "6 6\n"
        "Input      in0 0 1 in0\n"
        "TestAffine a1 1 1 in0 b1 0=2\n"
        "TestAffine a2 1 1 b1 b2 0=2\n"
        "TestAffine a3 1 1 b2 b3 0=2\n"
        "TestAffine a4 1 1 b3 b4 0=2\n"
        "TestAffine a5 1 1 b4 out 0=2\n";
    Net net;
    register_test_layers(net);
    ASSERT_EQ(net.load_param_mem(chain), 0);
    // scale 1, bias 1 per layer: out = in + 5
    std::vector<float> w;
    for (int l = 0; l < 5; l++)
    {
        w.push_back(0.f); // the fp32 tag
        w.push_back(1.f);
        w.push_back(1.f);
        w.push_back(1.f);
        w.push_back(1.f);
    }
    ASSERT_EQ(net.load_model((const unsigned char*)w.data(), w.size() * 4), w.size() * 4);
    reseed(12);
    Mat in = RandomMat(6, 5, 2);
    for (bool light : {true, false})
    {
        CountingAllocator alloc;
        {
            Extractor ex = net.create_extractor();
            ex.set_light_mode(light);
            ex.set_blob_allocator(&alloc);
            ASSERT_EQ(ex.input("in0", in), 0);
            Mat out;
            ASSERT_EQ(ex.extract("out", out), 0);
            for (int q = 0; q < 2; q++)
                for (int i = 0; i < 30; i++)
                    ASSERT_FLOAT_EQ(((const float*)out.channel(q).data)[i], ((const float*)in.channel(q).data)[i] + 5.f);
            if (light)
            {
                // only the output is still alive; never more than an input and an output at once
                EXPECT_EQ(alloc.live, 1);
                EXPECT_LE(alloc.peak, 2);
            }
            else
            {
                // every intermediate blob is kept by the extractor
                EXPECT_EQ(alloc.live, 5);
            }
        }
        EXPECT_EQ(alloc.live, 0) << "blocks leaked, light=" << light;
    }
}

TEST(Net, custom_layers)
{
    // a new type
    {
        const char* param =
            "7767517\n"
            "3 3\n"
            "Input in0 0 1 in0\n"
            "TestDouble d1 1 1 in0 x\n"
            "TestDouble d2 1 1 x out\n";
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.load_param_mem(param), 0);
        ASSERT_EQ(net.load_model_empty(), 0);
        reseed(13);
        Mat in = RandomMat(7, 3, 2);
        Extractor ex = net.create_extractor();
        ex.input("in0", in);
        Mat out;
        ASSERT_EQ(ex.extract("out", out), 0);
        for (int q = 0; q < 2; q++)
            for (int i = 0; i < 21; i++)
                ASSERT_EQ(((const float*)out.channel(q).data)[i], ((const float*)in.channel(q).data)[i] * 4.f);
        // the caller's input is untouched by the in-place layers
        EXPECT_EQ(compare_mat(in, [] { reseed(13); return RandomMat(7, 3, 2); }(), 0.f), "");
    }
    // overriding a built-in type, with a destroyer and userdata
    {
        int token = 10;
        g_destroyed = 0;
        {
            Net net;
            register_test_layers(net);
            ASSERT_EQ(net.register_custom_layer("ReLU", seven_creator, seven_destroyer, &token), 0);
            ASSERT_EQ(net.load_param_mem(kParam), 0);
            const Layer* relu = net.layers()[net.find_layer_index_by_name("relu")];
            EXPECT_EQ(relu->type, "ReLU");
            EXPECT_EQ(relu->userdata, &token);
            std::vector<unsigned char> bin = model_bin();
            ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
            reseed(14);
            Mat in = RandomMat(5, 4, 3);
            Mat out;
            ASSERT_EQ(run_model(net, in, out), "");
            // out = 7 + a
            for (int q = 0; q < 3; q++)
                for (int i = 0; i < 20; i++)
                    ASSERT_FLOAT_EQ(((const float*)out.channel(q).data)[i], 7.f + ((const float*)in.channel(q).data)[i] * kScale[q] + kBias[q]);
        }
        EXPECT_EQ(g_destroyed, 10); // the destroyer ran for the one custom ReLU
    }
    // registering twice replaces the creator
    {
        Net net;
        register_test_layers(net);
        ASSERT_EQ(net.register_custom_layer("TestDouble", seven_creator), 0);
        ASSERT_EQ(net.load_param_mem("7767517\n2 2\nInput in0 0 1 in0\nTestDouble d 1 1 in0 out\n"), 0);
        ASSERT_EQ(net.load_model_empty(), 0);
        Extractor ex = net.create_extractor();
        ex.input("in0", RandomMat(3, 3, 1));
        Mat out;
        ASSERT_EQ(ex.extract("out", out), 0);
        EXPECT_EQ(out[0], 7.f);
    }
    LogCapture log;
    Net net;
    EXPECT_NE(net.register_custom_layer(nullptr, double_creator), 0);
    EXPECT_NE(net.register_custom_layer("X", nullptr), 0);
}

TEST(Net, max_cpu_isa_forces_reference)
{
    const char* param =
        "7767517\n"
        "2 2\n"
        "Input in0 0 1 in0\n"
        "ReLU relu 1 1 in0 out 0=0.1\n";
    reseed(15);
    Mat in = RandomMat(16, 4, 8);
    Mat outs[2];
    for (int k = 0; k < 2; k++)
    {
        Net net;
        register_test_layers(net);
        net.opt.max_cpu_isa = k == 0 ? 0 : -1;
        ASSERT_EQ(net.load_param_mem(param), 0);
        ASSERT_EQ(net.load_model_empty(), 0);
        const Layer* relu = net.layers()[1];
        if (k == 0)
        {
            EXPECT_EQ(relu->isa, CPU_ISA_NONE);
            EXPECT_EQ(relu->backend, BACKEND_CPU);
        }
        else
        {
            // the best ReLU row this CPU can run: an optimised one wherever one is compiled in
            int count = 0;
            const LayerRegistryEntry* rows = layer_registry(&count);
            int best = CPU_ISA_NONE;
            for (int r = 0; r < count; r++)
                if (strcmp(rows[r].type, "ReLU") == 0 && rows[r].backend == BACKEND_CPU && cpu_support_isa(rows[r].isa))
                    best = std::max(best, rows[r].isa);
            EXPECT_EQ(relu->isa, best);
        }
        Extractor ex = net.create_extractor();
        ex.input("in0", in);
        ASSERT_EQ(ex.extract("out", outs[k]), 0);
        EXPECT_EQ(outs[k].elempack, 1);
    }
    EXPECT_EQ(compare_mat(outs[1], outs[0], 1e-6f), "");
    for (int q = 0; q < 8; q++)
        for (int i = 0; i < 64; i++)
        {
            float x = ((const float*)in.channel(q).data)[i];
            ASSERT_FLOAT_EQ(((const float*)outs[0].channel(q).data)[i], x > 0 ? x : 0.1f * x);
        }
}

TEST(Net, many_extractors_from_threads)
{
    std::vector<unsigned char> bin = model_bin();
    Net net;
    register_test_layers(net);
    ASSERT_EQ(net.load_param_mem(kParam), 0);
    ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
    reseed(16);
    Mat in = RandomMat(5, 4, 3, -2.f, 2.f);
    Mat ref;
    ASSERT_EQ(run_model(net, in, ref), "");
    ASSERT_EQ(compare_mat(ref, expected_output(in, kScale, kBias), 1e-6f), "");

    const int nthreads = 4;
    std::vector<int> mismatches(nthreads, 0), failures(nthreads, 0);
    std::vector<std::thread> threads;
    PoolAllocator shared_pool;
    for (int t = 0; t < nthreads; t++)
    {
        threads.emplace_back([&, t]() {
            UnlockedPoolAllocator own_pool;
            for (int i = 0; i < 200; i++)
            {
                Extractor ex = net.create_extractor();
                ex.set_num_threads(1);
                if (i % 2)
                    ex.set_blob_allocator(&shared_pool);
                else
                    ex.set_blob_allocator(&own_pool);
                ex.set_light_mode(i % 3 != 0);
                Mat out;
                if (ex.input("in0", in) != 0 || ex.extract("out", out) != 0)
                {
                    failures[t]++;
                    continue;
                }
                if (out.total() != ref.total() || memcmp(out.data, ref.data, ref.total() * 4) != 0)
                    mismatches[t]++;
            }
        });
    }
    for (auto& th : threads)
        th.join();
    for (int t = 0; t < nthreads; t++)
    {
        EXPECT_EQ(failures[t], 0) << "thread " << t;
        EXPECT_EQ(mismatches[t], 0) << "thread " << t;
    }
}

TEST(Net, per_extractor_threads)
{
    Net net;
    register_test_layers(net);
    net.register_custom_layer("TestProbe", probe_creator);
    net.opt.num_threads = 3;
    ASSERT_EQ(net.load_param_mem("7767517\n2 2\nInput in0 0 1 in0\nTestProbe p 1 1 in0 out\n"), 0);
    ASSERT_EQ(net.load_model_empty(), 0);
    for (int n : {1, 2, 4})
    {
        Extractor ex = net.create_extractor();
        EXPECT_EQ(ex.option().num_threads, 3); // copied from the Net
        ex.set_num_threads(n);
        EXPECT_EQ(ex.option().num_threads, n);
        ex.input("in0", RandomMat(4, 4, 1));
        Mat out;
        g_seen_threads = 0;
        ASSERT_EQ(ex.extract("out", out), 0);
        EXPECT_EQ(g_seen_threads, n);
    }
    EXPECT_EQ(net.opt.num_threads, 3);
}

TEST(Net, param_errors)
{
    struct Case
    {
        const char* name;
        const char* text;
        const char* message; // a fragment the error must contain
    };
    const Case cases[] = {
        {"bad magic", "7767518\n1 1\nInput in0 0 1 in0\n", "magic"},
        {"binary given as text", "\x1d\x83\x76\x00", "magic"},
        {"empty", "", ""},
        {"no counts", "7767517\n", ""},
        {"truncated layers", "7767517\n3 3\nInput in0 0 1 in0\nReLU r 1 1 in0 x\n", "truncated"},
        {"short layer line", "7767517\n2 2\nInput in0 0 1 in0\nReLU r 1\n", ""},
        {"missing blob names", "7767517\n2 2\nInput in0 0 1 in0\nReLU r 1 1 in0\n", ""},
        {"negative counts", "7767517\n2 2\nInput in0 0 1 in0\nReLU r -1 1 in0 x\n", ""},
        {"blob consumed but never produced", "7767517\n2 2\nInput in0 0 1 in0\nReLU r 1 1 nothing x\n", "nothing"},
        {"duplicate blob producer", "7767517\n3 2\nInput in0 0 1 in0\nReLU r1 1 1 in0 x\nReLU r2 1 1 in0 x\n", "produced twice"},
        {"duplicate layer name", "7767517\n3 3\nInput in0 0 1 in0\nReLU r 1 1 in0 x\nReLU r 1 1 x y\n", "'r'"},
        {"more blobs than declared", "7767517\n2 1\nInput in0 0 1 in0\nReLU r 1 1 in0 x\n", "blobs"},
        {"bad parameter", "7767517\n2 2\nInput in0 0 1 in0\nReLU r 1 1 in0 x 0=1 0=2\n", "twice"},
        {"one-blob layer with two inputs", "7767517\n3 3\nInput in0 0 1 in0\nSplit s 1 2 in0 a b\nReLU r 2 1 a b x\n", ""},
    };
    for (const Case& c : cases)
    {
        LogCapture log;
        Net net;
        register_test_layers(net);
        EXPECT_NE(net.load_param_mem(c.text), 0) << c.name;
        EXPECT_FALSE(log.lines.empty()) << c.name << ": no message";
        EXPECT_TRUE(log.has(c.message)) << c.name << ": " << log.all();
        EXPECT_TRUE(net.layers().empty()) << c.name << ": a failed load must leave the net empty";
        EXPECT_TRUE(net.blobs().empty()) << c.name;
    }
}

TEST(Net, unknown_layer_types_reported_together)
{
    const char* param =
        "7767517\n"
        "5 5\n"
        "Input in0 0 1 in0\n"
        "FooLayer f1 1 1 in0 a\n"
        "BarLayer b1 1 1 a b\n"
        "FooLayer f2 1 1 b c\n"
        "ReLU r 1 1 c d\n";
    LogCapture log;
    Net net;
    register_test_layers(net);
    EXPECT_NE(net.load_param_mem(param), 0);
    // one message that names both types
    bool together = false;
    for (const std::string& l : log.lines)
        if (l.find("FooLayer") != std::string::npos && l.find("BarLayer") != std::string::npos)
            together = true;
    EXPECT_TRUE(together) << log.all();
    EXPECT_TRUE(net.layers().empty());
}

TEST(Net, extract_errors)
{
    std::vector<unsigned char> bin = model_bin();
    Net net;
    register_test_layers(net);
    ASSERT_EQ(net.load_param_mem(kParam), 0);
    ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
    LogCapture log;
    Mat out;
    {
        // missing input
        Extractor ex = net.create_extractor();
        EXPECT_NE(ex.extract("out", out), 0);
        EXPECT_TRUE(log.has("in0")) << log.all();
    }
    {
        Extractor ex = net.create_extractor();
        EXPECT_NE(ex.input("nope", RandomMat(5, 4, 3)), 0);
        EXPECT_NE(ex.input(99, RandomMat(5, 4, 3)), 0);
        EXPECT_NE(ex.input(-1, RandomMat(5, 4, 3)), 0);
        EXPECT_NE(ex.input("in0", Mat()), 0); // an empty Mat
        ASSERT_EQ(ex.input("in0", RandomMat(5, 4, 3)), 0);
        log.lines.clear();
        EXPECT_NE(ex.extract("unknown_blob", out), 0);
        EXPECT_TRUE(log.has("unknown_blob")) << log.all();
        EXPECT_NE(ex.extract(99, out), 0);
        EXPECT_NE(ex.extract(-1, out), 0);
        // the extractor still works after errors
        EXPECT_EQ(ex.extract("out", out), 0);
    }
    {
        // a layer that fails (wrong channel count for the affine layer)
        Extractor ex = net.create_extractor();
        ASSERT_EQ(ex.input("in0", RandomMat(5, 4, 2)), 0);
        log.lines.clear();
        EXPECT_NE(ex.extract("out", out), 0);
        EXPECT_TRUE(log.has("aff")) << log.all();
    }
    {
        // extract before the weights are loaded
        Net fresh;
        register_test_layers(fresh);
        ASSERT_EQ(fresh.load_param_mem(kParam), 0);
        Extractor ex = fresh.create_extractor();
        ex.input("in0", RandomMat(5, 4, 3));
        EXPECT_NE(ex.extract("out", out), 0);
    }
}

TEST(Net, clear_and_reload)
{
    std::vector<unsigned char> bin = model_bin();
    Net net;
    register_test_layers(net);
    ASSERT_EQ(net.load_param_mem(kParam), 0);
    ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
    net.clear();
    EXPECT_TRUE(net.layers().empty());
    EXPECT_TRUE(net.blobs().empty());
    EXPECT_FALSE(net.model_loaded());
    // custom layers stay registered across clear()
    ASSERT_EQ(net.load_param_mem(kParam), 0);
    ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
    EXPECT_EQ(check_model(net), "");
}

// ncnn reads exactly the declared number of layers and ignores further lines
// (its own nanodet_m.param has one line more than its header says)
TEST(Net, lines_beyond_the_layer_count_are_ignored)
{
    kite::Net net;
    ASSERT_EQ(net.load_param_mem("7767517\n2 2\nInput in0 0 1 in0\nReLU r 1 1 in0 x\nNoop extra 1 1 x y\n"), 0);
    EXPECT_EQ(net.layers().size(), 2u);
    EXPECT_EQ(net.find_blob_index_by_name("y"), -1);
    EXPECT_GE(net.find_blob_index_by_name("x"), 0);
}

// Matrices of rows (unpacked, w >= 16) stay unpacked through Reshape, BinaryOp
// with a bias row and GELU (convnext's channels-last MLP between two matrix
// products), where the packing layout would pack the 3-D blob's channels; a
// BinaryOp with a packed operand of the same shape (after a ReLU) still packs both. Values
// against the same graph without the packing layout, 1 and 2 threads.
TEST(Net, rows_stay_unpacked_through_reshape_bias_gelu)
{
    const char* param = "7767517\n"
                        "10 11\n"
                        "Input      in0  0 1 x 0=32 1=24\n"
                        "Input      in1  0 1 y 0=32 1=3 2=8\n"
                        "Reshape    r3   1 1 x r 0=32 1=3 2=8\n"
                        "MemoryData bias 0 1 b 0=32 1=1 2=1\n"
                        "BinaryOp   add  2 1 b r a 0=0\n"
                        "GELU       gelu 1 1 a g\n"
                        "Split      sp   1 2 g g0 g1\n"
                        "ReLU       relu 1 1 y yr\n"
                        "BinaryOp   mix  2 1 g0 yr m 0=2\n"
                        "Reshape    r2   1 1 g1 out 0=32 1=24\n";
    reseed(1805);
    Mat bias = RandomMat(32);
    std::vector<unsigned char> bin(32 * 4);
    memcpy(bin.data(), bias.data, bin.size());
    Mat x = RandomMat(32, 24, -2.f, 2.f), y = RandomMat(32, 3, 8, -2.f, 2.f);
    for (int threads : {1, 2})
    {
        Mat want_out, want_m;
        for (bool packing : {false, true})
        {
            Net net;
            net.opt.use_packing_layout = packing;
            net.opt.use_fp16_storage = false;
            net.opt.use_fp16_arithmetic = false;
            net.opt.num_threads = threads;
            ASSERT_EQ(net.load_param_mem(param), 0);
            ASSERT_EQ(net.load_model(bin.data(), bin.size()), bin.size());
            Extractor ex = net.create_extractor();
            ex.set_light_mode(false); // intermediate blobs extracted after the outputs
            ASSERT_EQ(ex.input("x", x), 0);
            ASSERT_EQ(ex.input("y", y), 0);
            Mat out, m, g_raw, m_raw;
            ASSERT_EQ(ex.extract("out", out), 0);
            ASSERT_EQ(ex.extract("m", m), 0);
            ASSERT_EQ(ex.extract("g", g_raw, 1), 0);
            ASSERT_EQ(ex.extract("m", m_raw, 1), 0);
            const std::string where = "threads " + std::to_string(threads) + " seed " + std::to_string(seed()) + ": ";
            if (!packing)
            {
                want_out = out;
                want_m = m;
                continue;
            }
            EXPECT_EQ(g_raw.elempack, 1) << where << "the rows were packed";
            EXPECT_EQ(out.dims, 2) << where;
            EXPECT_EQ(compare_mat(out, want_out, 1e-5f), "") << where;
            EXPECT_EQ(compare_mat(m, want_m, 1e-5f), "") << where;
            if (cpu_support_isa(CPU_ISA_SSE2) || cpu_support_isa(CPU_ISA_NEON))
                EXPECT_GT(m_raw.elempack, 1) << where << "the mixed BinaryOp ran unpacked";
        }
    }
}
