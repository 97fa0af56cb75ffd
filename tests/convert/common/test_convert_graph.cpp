// tools/convert: graph passes (single assignment, splits, dead layers,
// ordering, checks), the text/bin writer read back by kite's Net, atomic
// writes and the unsupported-op report.

#include "graph.h"
#include "input_size.h"
#include "report.h"
#include "writer.h"

#include "datareader.h"
#include "mat.h"
#include "net.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace kite::convert;

namespace {

bool exists(const std::string& p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

std::string tmp_path(const char* name)
{
    return std::string(::testing::TempDir()) + "/kite_convert_" + std::to_string((long)getpid()) + "_" + name;
}

std::vector<float> random_vector(std::mt19937& rng, size_t n, float lo = -1.f, float hi = 1.f)
{
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v)
        x = d(rng);
    return v;
}

// in -> conv 3x3 pad 1 (+bias) -> ReLU in place (caffe style) -> read twice:
// max pool 3x3 pad 1 and global average pool -> multiplied (broadcast);
// plus a dead Noop reading the conv output.
Graph small_graph(std::mt19937& rng, int inch, int outch)
{
    Graph g;
    g.add_input("data", 7, 5, inch);
    Layer& conv = g.add("Convolution", "conv", {"data"}, {"conv"});
    conv.params.set(0, outch);
    conv.params.set(1, 3);
    conv.params.set(4, 1);
    conv.params.set(5, 1);
    conv.params.set(6, outch * inch * 9);
    conv.weights.push_back(Weight(random_vector(rng, (size_t)outch * inch * 9), true));
    conv.weights.push_back(Weight(random_vector(rng, outch), false));
    g.add("ReLU", "relu", {"conv"}, {"conv"});
    Layer& p1 = g.add("Pooling", "pool max", {"conv"}, {"p1"});
    p1.params.set(0, 0);
    p1.params.set(1, 3);
    p1.params.set(2, 1);
    p1.params.set(3, 1);
    Layer& p2 = g.add("Pooling", "pool_avg", {"conv"}, {"p2"});
    p2.params.set(0, 1);
    p2.params.set(4, 1);
    Layer& m = g.add("BinaryOp", "mul", {"p1", "p2"}, {"out"});
    m.params.set(0, 2);
    g.add("Noop", "unused", {"conv"}, {"dead"});
    return g;
}

// reference computation of small_graph
std::vector<float> small_graph_reference(const Graph& g0, const std::vector<float>& in, int w, int h, int inch, int outch)
{
    const Layer* conv = nullptr;
    for (const Layer& l : g0.layers)
        if (l.type == "Convolution")
            conv = &l;
    const std::vector<float>& wt = conv->weights[0].data;
    const std::vector<float>& bias = conv->weights[1].data;
    std::vector<float> c((size_t)outch * w * h);
    for (int o = 0; o < outch; o++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
            {
                float s = bias[o];
                for (int i = 0; i < inch; i++)
                    for (int ky = 0; ky < 3; ky++)
                        for (int kx = 0; kx < 3; kx++)
                        {
                            int yy = y + ky - 1, xx = x + kx - 1;
                            if (yy < 0 || yy >= h || xx < 0 || xx >= w)
                                continue;
                            s += wt[((o * inch + i) * 3 + ky) * 3 + kx] * in[((size_t)i * h + yy) * w + xx];
                        }
                c[((size_t)o * h + y) * w + x] = s > 0 ? s : 0;
            }
    std::vector<float> out(c.size());
    for (int o = 0; o < outch; o++)
    {
        double mean = 0;
        for (int k = 0; k < w * h; k++)
            mean += c[(size_t)o * w * h + k];
        mean /= w * h;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
            {
                float m = -INFINITY;
                for (int ky = -1; ky <= 1; ky++)
                    for (int kx = -1; kx <= 1; kx++)
                    {
                        int yy = y + ky, xx = x + kx;
                        if (yy < 0 || yy >= h || xx < 0 || xx >= w)
                            continue;
                        m = std::max(m, c[((size_t)o * h + yy) * w + xx]);
                    }
                out[((size_t)o * h + y) * w + x] = m * (float)mean;
            }
    }
    return out;
}

int run_net(const std::string& param, const std::string& bin, const std::vector<float>& in, int w, int h, int c,
            const char* out_name, kite::Mat& out)
{
    kite::Net net;
    if (net.load_param(param.c_str()) != 0 || net.load_model(bin.c_str()) != 0)
        return -1;
    kite::Mat m(w, h, c);
    for (int q = 0; q < c; q++)
        memcpy(m.channel(q), &in[(size_t)q * w * h], sizeof(float) * w * h);
    kite::Extractor ex = net.create_extractor();
    if (ex.input("data", m) != 0)
        return -1;
    return ex.extract(out_name, out);
}

} // namespace

TEST(ConvertGraph, FormatFloatAlwaysReadsAsFloat)
{
    EXPECT_EQ(format_float(1.f), "1.0");
    EXPECT_EQ(format_float(0.f), "0.0");
    EXPECT_EQ(format_float(-2.5f), "-2.5");
    EXPECT_EQ(format_float(1e20f), "1e+20");
    std::mt19937 rng(7);
    for (float v : random_vector(rng, 1000, -1e6f, 1e6f))
    {
        std::string s = format_float(v);
        EXPECT_NE(s.find_first_of(".eE"), std::string::npos) << s;
        EXPECT_EQ(strtof(s.c_str(), nullptr), v) << s;
    }
}

TEST(ConvertGraph, SingleAssignmentSplitsDeadLayersAndOrder)
{
    std::mt19937 rng(1);
    Graph g = small_graph(rng, 3, 5);
    FinalizeOptions opt;
    opt.outputs = {"out"};
    ASSERT_EQ(finalize(g, opt), 0) << g.error;
    // dead Noop removed, one Split for the relu output (read by two poolings)
    int splits = 0;
    for (const Layer& l : g.layers)
    {
        EXPECT_NE(l.type, "Noop");
        if (l.type == "Split")
        {
            splits++;
            EXPECT_EQ(l.bottoms, std::vector<std::string>{"conv"});
            EXPECT_EQ(l.tops.size(), 2u);
        }
        EXPECT_EQ(l.name.find(' '), std::string::npos);
    }
    EXPECT_EQ(splits, 1);
    // in-place relu: the conv now writes a fresh blob the relu reads
    int ci = g.producer("conv");
    ASSERT_GE(ci, 0);
    EXPECT_EQ(g.layers[ci].type, "ReLU");
    EXPECT_NE(g.layers[ci].bottoms[0], "conv");
    EXPECT_EQ(g.layers[g.producer(g.layers[ci].bottoms[0])].type, "Convolution");
    for (const Layer& l : g.layers)
        for (const std::string& t : l.tops)
            EXPECT_LE(g.consumer_count(t), 1) << t;
}

TEST(ConvertGraph, InPlaceOnAnInputKeepsTheInputName)
{
    Graph g;
    g.add_input("data");
    g.add("Power", "scale_in_place", {"data"}, {"data"});
    g.add("ReLU", "relu", {"data"}, {"data"});
    g.add("Sigmoid", "sig", {"data"}, {"out"});
    ASSERT_EQ(finalize(g), 0) << g.error;
    ASSERT_EQ(g.layers.size(), 4u);
    EXPECT_EQ(g.layers[0].tops[0], "data");
    EXPECT_EQ(g.layers[1].bottoms[0], "data");
    EXPECT_EQ(g.layers[2].bottoms[0], g.layers[1].tops[0]);
    EXPECT_EQ(g.layers[3].bottoms[0], g.layers[2].tops[0]);
    EXPECT_NE(g.layers[1].tops[0], "data");
    EXPECT_NE(g.layers[2].tops[0], g.layers[1].tops[0]);
}

TEST(ConvertGraph, WrittenModelRunsInKite)
{
    for (int seed = 1; seed <= 3; seed++)
    {
        std::mt19937 rng(seed);
        const int w = 7, h = 5, inch = 3 + seed, outch = 4 + 2 * seed;
        Graph g = small_graph(rng, inch, outch);
        Graph orig = g;
        if (seed == 3)
            use_fp16_storage(g);
        std::string param = tmp_path("a.param"), bin = tmp_path("a.bin");
        ASSERT_EQ(finalize_and_write(g, param, bin, "test"), 0);
        std::vector<float> in = random_vector(rng, (size_t)inch * w * h);
        kite::Mat out;
        ASSERT_EQ(run_net(param, bin, in, w, h, inch, "out", out), 0) << "seed " << seed;
        std::vector<float> ref = small_graph_reference(orig, in, w, h, inch, outch);
        ASSERT_EQ(out.w, w);
        ASSERT_EQ(out.h, h);
        ASSERT_EQ(out.c, outch);
        float tol = seed == 3 ? 2e-2f : 1e-4f;
        for (int q = 0; q < outch; q++)
            for (int k = 0; k < w * h; k++)
                ASSERT_NEAR(out.channel(q)[k], ref[(size_t)q * w * h + k], tol * (1 + std::fabs(ref[(size_t)q * w * h + k])))
                    << "seed " << seed << " channel " << q << " index " << k;
        remove(param.c_str());
        remove(bin.c_str());
    }
}

TEST(ConvertGraph, ParamTextHasArraysStringsAndCounts)
{
    Graph g;
    g.add_input("in", 4, 0, 0);
    Layer& l = g.add("Clip", "c", {"in"}, {"o"});
    l.params.set(0, -1.f);
    l.params.set(1, 6);
    l.params.set_ints(3, {1, -2});
    l.params.set_floats(4, {0.5f, 2.f});
    l.params.set_string(6, "1w,1h");
    std::string t = param_text(g);
    EXPECT_EQ(t.substr(0, 12), "7767517\n2 2\n");
    EXPECT_NE(t.find(" 0=-1.0 1=6 -23303=2,1,-2 -23304=2,0.5,2.0 6=\"1w,1h\""), std::string::npos) << t;
}

TEST(ConvertGraph, BinLayoutTagsAndPadding)
{
    Graph g;
    Layer& l = g.add("X", "x", {}, {"a"});
    Weight a({1.f, 2.f, 3.f}, true);
    a.storage = Weight::FP16;
    Weight b({4.f}, false);
    Weight c;
    c.storage = Weight::INT8;
    c.i8 = {1, -2, 3};
    l.weights = {a, b, c};
    std::vector<unsigned char> bytes = bin_bytes(g);
    // fp16: tag + 3 halves padded to 8; raw: 4; int8: tag + 3 padded to 4
    ASSERT_EQ(bytes.size(), 4u + 8u + 4u + 4u + 4u);
    uint32_t tag;
    memcpy(&tag, &bytes[0], 4);
    EXPECT_EQ(tag, 0x01306B47u);
    unsigned short h;
    memcpy(&h, &bytes[6], 2);
    EXPECT_EQ(kite::float16_to_float32(h), 2.f);
    float f;
    memcpy(&f, &bytes[12], 4);
    EXPECT_EQ(f, 4.f);
    memcpy(&tag, &bytes[16], 4);
    EXPECT_EQ(tag, 0x000D4B38u);
    EXPECT_EQ((int8_t)bytes[21], -2);
}

TEST(ConvertGraph, ErrorsLeaveNoFiles)
{
    std::string param = tmp_path("bad.param"), bin = tmp_path("bad.bin");
    remove(param.c_str());
    remove(bin.c_str());
    {
        Graph g;
        g.add("ReLU", "r", {"nowhere"}, {"o"});
        testing::internal::CaptureStderr();
        EXPECT_NE(finalize_and_write(g, param, bin, "test"), 0);
        std::string err = testing::internal::GetCapturedStderr();
        EXPECT_NE(err.find("nowhere"), std::string::npos) << err;
        EXPECT_FALSE(exists(param));
        EXPECT_FALSE(exists(bin));
    }
    {
        Graph g;
        g.add_input("a");
        g.add("ReLU", "r1", {"b"}, {"c"});
        g.add("ReLU", "r2", {"c"}, {"b"});
        EXPECT_NE(finalize(g), 0);
        EXPECT_NE(g.error.find("cycle"), std::string::npos) << g.error;
    }
    {
        Graph g;
        g.add_input("a");
        FinalizeOptions opt;
        opt.outputs = {"missing"};
        EXPECT_NE(finalize(g, opt), 0);
        EXPECT_NE(g.error.find("missing"), std::string::npos);
    }
    {
        // unwritable folder: no file, no temporary left
        Graph g;
        g.add_input("a");
        std::string err;
        EXPECT_NE(write_files(g, "/nonexistent_dir_kite/x.param", "/nonexistent_dir_kite/x.bin", err), 0);
        EXPECT_NE(err.find("nonexistent_dir_kite"), std::string::npos);
        EXPECT_NE(write_files(g, param, param, err), 0);
        EXPECT_FALSE(exists(param));
    }
}

TEST(ConvertGraph, BypassKeepsOutputNames)
{
    Graph g;
    g.add_input("in");
    g.add("ReLU", "r", {"in"}, {"x"});
    g.add("Dropout", "d", {"x"}, {"y"});
    g.add("Dropout", "d2", {"y"}, {"z"});
    g.add("Sigmoid", "s", {"z"}, {"out"});
    g.add("Dropout", "d3", {"out"}, {"final"});
    g.add("Dropout", "d4", {"in"}, {"in2"});
    g.add("Concat", "cat", {"in2", "in"}, {"cat"});
    g.bypass(2); // d: the relu writes y
    ASSERT_EQ(g.layers.size(), 7u);
    EXPECT_EQ(g.layers[1].tops[0], "y");
    EXPECT_EQ(g.layers[2].name, "d2");
    g.bypass(2); // d2: the relu writes z
    ASSERT_EQ(g.layers.size(), 6u);
    EXPECT_EQ(g.layers[1].tops[0], "z");
    EXPECT_EQ(g.layers[2].bottoms[0], "z");
    g.bypass(4); // d4 reads an input that others read too: the concat reads in
    ASSERT_EQ(g.layers.size(), 5u);
    EXPECT_EQ(g.layers[4].bottoms, (std::vector<std::string>{"in", "in"}));
    g.bypass(3); // d3 writes the output: the sigmoid takes over its name
    ASSERT_EQ(g.layers.size(), 4u);
    EXPECT_EQ(g.layers[2].tops[0], "final");
    ASSERT_EQ(finalize(g), 0) << g.error;
    std::vector<std::string> outs = g.unconsumed_blobs();
    std::sort(outs.begin(), outs.end());
    EXPECT_EQ(outs, (std::vector<std::string>{"cat", "final"}));
}

TEST(ConvertGraph, UnsupportedReportListsAll)
{
    UnsupportedOps u;
    EXPECT_TRUE(u.empty());
    u.add("Foo", "n1");
    u.add("Bar", "n2", "mode=reflect");
    u.add("Foo", "n3");
    std::string t = u.text();
    EXPECT_NE(t.find("2 types, 3 nodes"), std::string::npos) << t;
    EXPECT_NE(t.find("Foo x2 (first node 'n1')"), std::string::npos) << t;
    EXPECT_NE(t.find("Bar x1 (first node 'n2': mode=reflect)"), std::string::npos) << t;
    testing::internal::CaptureStderr();
    EXPECT_EQ(u.print("tool"), 1);
    EXPECT_NE(testing::internal::GetCapturedStderr().find("tool: error: unsupported ops"), std::string::npos);
}

// any input size (input_size.h): the token grid of a channels-last Linear as
// converters emit it at one input size: data [c,h,w] -> Permute to [h,w,c] ->
// Reshape to [h*w, c] -> ReLU -> Reshape back to [h,w,c]
namespace {

Graph token_graph(int c, int h, int w, BlobShapes& shapes)
{
    Graph g;
    g.add_input("data", w, h, c);
    g.add("Permute", "to_hwc", {"data"}, {"t"}).params.set(0, 3);
    Layer& r1 = g.add("Reshape", "flatten", {"t"}, {"f"});
    r1.params.set(0, c);
    r1.params.set(1, h * w);
    g.add("ReLU", "relu", {"f"}, {"g"});
    Layer& r2 = g.add("Reshape", "unflatten", {"g"}, {"out"});
    r2.params.set(0, c);
    r2.params.set(1, w);
    r2.params.set(2, h);
    shapes = {{"data", {c, h, w}}, {"t", {h, w, c}}, {"f", {h * w, c}}, {"g", {h * w, c}}, {"out", {h, w, c}}};
    return g;
}

} // namespace

TEST(ConvertInputSize, ReshapesFollowTheInput)
{
    BlobShapes sa, sb;
    Graph a = token_graph(8, 4, 6, sa);
    Graph b = token_graph(8, 8, 18, sb);
    ASSERT_EQ(generalize_input_size(a, sa, b, sb), "");
    EXPECT_EQ(a.layers[2].params.get_int(0, 0), 8);
    EXPECT_EQ(a.layers[2].params.get_int(1, 0), -1); // h*w: inferred
    const ParamValue* e = a.layers[4].params.find(6);
    ASSERT_TRUE(e && e->type == ParamValue::STRING);
    EXPECT_EQ(e->s, "8,-1,1c"); // h: the permuted blob's c
    EXPECT_EQ(a.layers[4].bottoms, (std::vector<std::string>{"g", "t"}));
    // the converted graph runs at a third size: out = relu(data) in HWC order
    std::string param = tmp_path("size.param"), bin = tmp_path("size.bin");
    ASSERT_EQ(finalize_and_write(a, param, bin, "test"), 0);
    std::mt19937 rng(5);
    for (int hw : {0, 1})
    {
        const int c = 8, h = hw ? 5 : 4, w = hw ? 11 : 6;
        std::vector<float> in = random_vector(rng, (size_t)c * h * w);
        kite::Mat out;
        ASSERT_EQ(run_net(param, bin, in, w, h, c, "out", out), 0) << "at " << h << "x" << w;
        ASSERT_EQ(out.dims, 3);
        ASSERT_EQ(out.w, c);
        ASSERT_EQ(out.h, w);
        ASSERT_EQ(out.c, h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int q = 0; q < c; q++)
                    ASSERT_EQ(out.channel(y)[x * c + q], std::max(in[((size_t)q * h + y) * w + x], 0.f)) << "at " << h << "x" << w;
    }
    remove(param.c_str());
    remove(bin.c_str());
}

TEST(ConvertInputSize, FixedSizesAreNamed)
{
    BlobShapes sa, sb;
    Graph a = token_graph(8, 4, 6, sa);
    Graph b = token_graph(8, 8, 18, sb);
    // a constant that depends on the input size (a folded attention mask)
    a.add("MemoryData", "mask", {}, {"m"}).weights.push_back(Weight(std::vector<float>(24, 0.f), false));
    b.add("MemoryData", "mask", {}, {"m"}).weights.push_back(Weight(std::vector<float>(144, 0.f), false));
    const Graph before = a;
    std::string why = generalize_input_size(a, sa, b, sb);
    EXPECT_NE(why.find("'mask'"), std::string::npos) << why;
    EXPECT_EQ(param_text(a), param_text(before)); // left as converted
    // another layer's parameter that follows the input
    BlobShapes sc, sd;
    Graph c = token_graph(8, 4, 6, sc), d = token_graph(8, 8, 18, sd);
    c.add("Pooling", "pool", {"out"}, {"p"}).params.set(1, 6);
    d.add("Pooling", "pool", {"out"}, {"p"}).params.set(1, 18);
    why = generalize_input_size(c, sc, d, sd);
    EXPECT_NE(why.find("'pool' (Pooling) has parameter 1 = 6 at one size and 18"), std::string::npos) << why;
    EXPECT_EQ(c.layers[2].params.get_int(1, 0), 24); // the Reshapes are restored
    // a different layer list
    BlobShapes se, sf;
    Graph e = token_graph(8, 4, 6, se), f = token_graph(8, 8, 18, sf);
    f.add("ReLU", "extra", {"out"}, {"o2"});
    EXPECT_NE(generalize_input_size(e, se, f, sf).find("layers"), std::string::npos);
}

TEST(ConvertInputSize, InterpSizesFollowABlob)
{
    // data [4,h,w] -> stride-2 pooling -> Interp back to data's size (ONNX
    // Resize with sizes from Shape(data)) -> Add
    auto make = [](int h, int w, BlobShapes& s) {
        Graph g;
        g.add_input("data", w, h, 4);
        Layer& p = g.add("Pooling", "pool", {"data"}, {"p"});
        p.params.set(1, 2);
        p.params.set(2, 2);
        Layer& ip = g.add("Interp", "up", {"p"}, {"u"});
        ip.params.set(0, 2);
        ip.params.set(3, h);
        ip.params.set(4, w);
        g.add("BinaryOp", "add", {"u", "data"}, {"out"});
        s = {{"data", {4, h, w}}, {"p", {4, h / 2, w / 2}}, {"u", {4, h, w}}, {"out", {4, h, w}}};
        return g;
    };
    BlobShapes sa, sb;
    Graph a = make(16, 20, sa), b = make(32, 60, sb);
    ASSERT_EQ(generalize_input_size(a, sa, b, sb), "");
    const Layer& up = a.layers[2];
    EXPECT_EQ(up.params.get_int(5, 0), 1); // dynamic_target_size: data's w and h
    EXPECT_FALSE(up.params.has(3));
    EXPECT_FALSE(up.params.has(4));
    EXPECT_EQ(up.bottoms, (std::vector<std::string>{"p", "data"}));
    std::string param = tmp_path("interp.param"), bin = tmp_path("interp.bin");
    ASSERT_EQ(finalize_and_write(a, param, bin, "test"), 0);
    std::mt19937 rng(9);
    std::vector<float> in = random_vector(rng, (size_t)4 * 17 * 23);
    kite::Mat out;
    ASSERT_EQ(run_net(param, bin, in, 23, 17, 4, "out", out), 0); // an odd size: 2x the pooled size would not fit
    EXPECT_EQ(out.w, 23);
    EXPECT_EQ(out.h, 17);
    remove(param.c_str());
    remove(bin.c_str());
}

TEST(ConvertInputSize, CropBoundsFromTheEnd)
{
    // x[:, 1:H-1, 2:] as a converter folds it at one size: ends H-1 and W
    auto make = [](int h, int w, BlobShapes& s) {
        Graph g;
        g.add_input("data", w, h, 3);
        Layer& c = g.add("Crop", "crop", {"data"}, {"out"});
        c.params.set_ints(9, {1, 2});
        c.params.set_ints(10, {h - 1, w});
        c.params.set_ints(11, {1, 2});
        s = {{"data", {3, h, w}}, {"out", {3, h - 2, w - 2}}};
        return g;
    };
    BlobShapes sa, sb;
    Graph a = make(8, 10, sa), b = make(16, 30, sb);
    ASSERT_EQ(generalize_input_size(a, sa, b, sb), "");
    EXPECT_EQ(a.layers[1].params.get_ints(9), (std::vector<int>{1, 2}));
    EXPECT_EQ(a.layers[1].params.get_ints(10), (std::vector<int>{-1, -233}));
    // half the axis is no bound from the end: the size is fixed
    Graph c = make(8, 10, sa), d = make(16, 30, sb);
    c.layers[1].params.set_ints(10, {4, 10});
    d.layers[1].params.set_ints(10, {8, 30});
    EXPECT_NE(generalize_input_size(c, sa, d, sb).find("'crop'"), std::string::npos);
    EXPECT_EQ(c.layers[1].params.get_ints(10), (std::vector<int>{4, 10}));
}

// Swin's shifted-window attention mask, folded by a converter to a constant
// at each size, becomes layers computed from the padded map at run time
// (input_size.cpp, window_mask_layers): checked against the mask built as
// torchvision builds it (slice assignments of region ids, python slice
// bounds, -0 included) at sizes other than the two converted ones.
namespace {

// python's x[a:b] bounds on an axis of n (b_none: b is None)
void py_slice(int a, int b, bool b_none, int n, int& lo, int& hi)
{
    lo = a < 0 ? std::max(a + n, 0) : std::min(a, n);
    hi = b_none ? n : b < 0 ? std::max(b + n, 0) : std::min(b, n);
}

// [nW, N, N] as torchvision's shifted_window_attention makes it
std::vector<float> torchvision_mask(int ph, int pw, int wh, int ww, int sh, int sw)
{
    std::vector<float> img((size_t)ph * pw, 0.f);
    const int hs[3][2] = {{0, -wh}, {-wh, -sh}, {-sh, 0}}, wss[3][2] = {{0, -ww}, {-ww, -sw}, {-sw, 0}};
    int count = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++, count++)
        {
            int y0, y1, x0, x1;
            py_slice(hs[i][0], hs[i][1], i == 2, ph, y0, y1);
            py_slice(wss[j][0], wss[j][1], j == 2, pw, x0, x1);
            for (int y = y0; y < y1; y++)
                for (int x = x0; x < x1; x++)
                    img[(size_t)y * pw + x] = (float)count;
        }
    const int n = wh * ww;
    std::vector<float> m;
    for (int wy = 0; wy < ph / wh; wy++)
        for (int wx = 0; wx < pw / ww; wx++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                {
                    const float a = img[(size_t)(wy * wh + i / ww) * pw + wx * ww + i % ww];
                    const float b = img[(size_t)(wy * wh + j / ww) * pw + wx * ww + j % ww];
                    m.push_back(a != b ? -100.f : 0.f);
                }
    return m;
}

// data [pH, pW, C] -> Padding (pads folded to 0) -> the padded map; the mask
// a MemoryData of [nW, 1, N, N]
Graph mask_graph(int ph, int pw, int wh, int ww, int sh, int sw, BlobShapes& shapes)
{
    const int c = 3, n = wh * ww, nw = (ph / wh) * (pw / ww);
    Graph g;
    g.add_input("data", c, pw, ph);
    g.add("Padding", "pad", {"data"}, {"p"});
    g.add("ReLU", "use", {"p"}, {"r"});
    Layer& m = g.add("MemoryData", "mask", {}, {"m"});
    m.params.set(0, n);
    m.params.set(1, n);
    m.params.set(11, 1);
    m.params.set(2, nw);
    m.weights.push_back(Weight(torchvision_mask(ph, pw, wh, ww, sh, sw), false));
    shapes = {{"data", {ph, pw, c}}, {"p", {ph, pw, c}}, {"r", {ph, pw, c}}, {"m", {nw, 1, n, n}}};
    return g;
}

} // namespace

TEST(ConvertInputSize, ShiftedWindowMaskFollowsThePaddedMap)
{
    struct Case
    {
        int wh, ww, sh, sw, pha, pwa, phb, pwb;
        std::vector<std::pair<int, int> > runs;
    };
    const Case cases[] = {
        {4, 4, 2, 2, 8, 8, 16, 24, {{12, 8}, {4, 16}, {8, 8}, {20, 12}}},
        {3, 2, 1, 0, 6, 4, 12, 12, {{9, 6}, {3, 2}, {6, 10}}}, // no shift along the width (torchvision's -0 slices)
        {7, 7, 3, 3, 14, 14, 28, 42, {{7, 7}, {21, 14}, {56, 28}}},
    };
    for (const Case& k : cases)
    {
        BlobShapes sa, sb;
        Graph a = mask_graph(k.pha, k.pwa, k.wh, k.ww, k.sh, k.sw, sa);
        Graph b = mask_graph(k.phb, k.pwb, k.wh, k.ww, k.sh, k.sw, sb);
        ASSERT_EQ(generalize_input_size(a, sa, b, sb), "") << "window " << k.wh << "x" << k.ww;
        for (const Layer& l : a.layers)
            ASSERT_NE(l.type, "MemoryData") << "the mask stayed a constant";
        std::string param = tmp_path("mask.param"), bin = tmp_path("mask.bin");
        ASSERT_EQ(finalize_and_write(a, param, bin, "test"), 0);
        std::mt19937 rng(7);
        for (const auto& hw : k.runs)
        {
            const int ph = hw.first, pw = hw.second, n = k.wh * k.ww, nw = (ph / k.wh) * (pw / k.ww);
            std::vector<float> in = random_vector(rng, (size_t)3 * ph * pw);
            kite::Mat out;
            ASSERT_EQ(run_net(param, bin, in, 3, pw, ph, "m", out), 0) << "at " << ph << "x" << pw;
            ASSERT_EQ(out.dims, 4);
            ASSERT_EQ(out.w, n);
            ASSERT_EQ(out.h, n);
            ASSERT_EQ(out.d, 1);
            ASSERT_EQ(out.c, nw) << "at " << ph << "x" << pw;
            const std::vector<float> want = torchvision_mask(ph, pw, k.wh, k.ww, k.sh, k.sw);
            for (int q = 0; q < nw; q++)
                for (int i = 0; i < n * n; i++)
                    ASSERT_EQ(out.channel(q)[i], want[(size_t)q * n * n + i])
                        << "window " << q << " pair " << i << " at " << ph << "x" << pw << " (window " << k.wh << "x" << k.ww << ", shift " << k.sh << "," << k.sw << ")";
        }
        remove(param.c_str());
        remove(bin.c_str());
    }
}
