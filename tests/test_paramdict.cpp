// ParamDict tests: text k=v parsing (ints, floats, arrays in both forms,
// strings, errors), binary parameter lists, and parameters seen through a Net.
#include "testutil.h"

#include "datareader.h"
#include "log.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream is(s);
    std::string t;
    while (is >> t)
        out.push_back(t);
    return out;
}

int parse(ParamDict& pd, const std::string& line)
{
    std::vector<std::string> t = split(line);
    return pd.load_param_text(t.data(), (int)t.size(), "test");
}

std::vector<std::string>* g_log = nullptr;
void capture_log(int level, const char* msg, void*)
{
    if (g_log && level == LOG_ERROR)
        g_log->push_back(msg);
}

// collects error messages while alive
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
};

int int_at(const Mat& m, int i)
{
    return ((const int*)m.data)[i];
}

float float_at(const Mat& m, int i)
{
    return ((const float*)m.data)[i];
}

// a little-endian int32 stream for binary params
struct BinWriter
{
    std::vector<unsigned char> bytes;
    void i(int v)
    {
        unsigned char b[4];
        memcpy(b, &v, 4);
        bytes.insert(bytes.end(), b, b + 4);
    }
    void f(float v)
    {
        int x;
        memcpy(&x, &v, 4);
        i(x);
    }
    void str(const std::string& s)
    {
        i((int)s.size());
        bytes.insert(bytes.end(), s.begin(), s.end());
        while (bytes.size() % 4)
            bytes.push_back(0);
    }
};

// Workaround for a bug in src/net.cpp (Net::add_layer rejects the built-in
// Input layer: it is one_blob_only but has no input blob; see test_net.cpp,
// Net.builtin_input_layer_loads). When the built-in Input cannot be loaded, a
// stand-in "Input" custom layer is registered so the rest can be tested.
class StandInInput : public Layer
{
public:
    StandInInput() { one_blob_only = false; }
};
Layer* stand_in_input_creator(void*) { return new StandInInput; }

void work_around_input_bug(Net& net)
{
    Net probe;
    LogCapture quiet;
    if (probe.load_param_mem("7767517\n1 1\nInput in0 0 1 in0\n") != 0)
        net.register_custom_layer("Input", stand_in_input_creator);
}

} // namespace

TEST(ParamDict, scalars)
{
    ParamDict pd;
    ASSERT_EQ(parse(pd, "0=3 1=0.5 2=1e-5 3=-2.5E+3 4=-7 5=1E3 6=.25 7=+12 8=0"), 0);
    EXPECT_EQ(pd.type(0), ParamDict::TYPE_INT);
    EXPECT_EQ(pd.get(0, 0), 3);
    EXPECT_EQ(pd.get(0, 0.f), 3.f);
    EXPECT_EQ(pd.type(1), ParamDict::TYPE_FLOAT);
    EXPECT_EQ(pd.get(1, 0.f), 0.5f);
    EXPECT_EQ(pd.get(2, 0.f), 1e-5f);
    EXPECT_EQ(pd.type(2), ParamDict::TYPE_FLOAT);
    EXPECT_EQ(pd.get(3, 0.f), -2500.f);
    EXPECT_EQ(pd.get(4, 0), -7);
    EXPECT_EQ(pd.type(5), ParamDict::TYPE_FLOAT); // an 'E' makes it a float
    EXPECT_EQ(pd.get(5, 0.f), 1000.f);
    EXPECT_EQ(pd.get(5, 0), 1000);
    EXPECT_EQ(pd.get(6, 0.f), 0.25f);
    EXPECT_EQ(pd.get(7, 0), 12);
    EXPECT_EQ(pd.get(8, 5), 0);
    // absent ids give the default
    EXPECT_FALSE(pd.has(9));
    EXPECT_EQ(pd.get(9, 42), 42);
    EXPECT_EQ(pd.get(9, 1.5f), 1.5f);
    EXPECT_EQ(pd.get(31, 1), 1);
    EXPECT_EQ(pd.get(-1, 2), 2);
    EXPECT_EQ(pd.get(32, 3), 3);
    // loading again starts from scratch
    ASSERT_EQ(parse(pd, "9=1"), 0);
    EXPECT_FALSE(pd.has(0));
    EXPECT_EQ(pd.get(9, 0), 1);
}

TEST(ParamDict, arrays_both_forms)
{
    ParamDict pd;
    ASSERT_EQ(parse(pd, "-23300=3,1,-2,3 -23310=2,0.0,6.0 -23311=3,1e-5,2.5E2,-0.5 5=4,5,6 6=0.1,0.2 -23312=0"), 0);
    Mat a = pd.get(0, Mat());
    ASSERT_EQ(pd.type(0), ParamDict::TYPE_ARRAY);
    ASSERT_EQ(a.w, 3);
    EXPECT_EQ(int_at(a, 0), 1);
    EXPECT_EQ(int_at(a, 1), -2);
    EXPECT_EQ(int_at(a, 2), 3);
    Mat b = pd.get(10, Mat());
    ASSERT_EQ(b.w, 2);
    EXPECT_EQ(float_at(b, 0), 0.f);
    EXPECT_EQ(float_at(b, 1), 6.f);
    Mat c = pd.get(11, Mat());
    ASSERT_EQ(c.w, 3);
    EXPECT_EQ(float_at(c, 0), 1e-5f);
    EXPECT_EQ(float_at(c, 1), 250.f);
    EXPECT_EQ(float_at(c, 2), -0.5f);
    Mat d = pd.get(5, Mat());
    ASSERT_EQ(pd.type(5), ParamDict::TYPE_ARRAY);
    ASSERT_EQ(d.w, 3);
    EXPECT_EQ(int_at(d, 2), 6);
    Mat e = pd.get(6, Mat());
    ASSERT_EQ(e.w, 2);
    EXPECT_EQ(float_at(e, 1), 0.2f);
    // an empty array
    ASSERT_EQ(pd.type(12), ParamDict::TYPE_ARRAY);
    EXPECT_EQ(pd.get(12, Mat()).w, 0);
}

TEST(ParamDict, strings)
{
    ParamDict pd;
    ASSERT_EQ(parse(pd, "6=\"1w,1h,128\" 7=abc 8=\"\""), 0);
    EXPECT_EQ(pd.type(6), ParamDict::TYPE_STRING);
    EXPECT_EQ(pd.get(6, ""), "1w,1h,128");
    EXPECT_EQ(pd.type(7), ParamDict::TYPE_STRING);
    EXPECT_EQ(pd.get(7, ""), "abc");
    EXPECT_EQ(pd.get(8, "x"), "");
    EXPECT_EQ(pd.get(9, "dflt"), "dflt");
    // a string is not a number
    EXPECT_EQ(pd.get(7, 5), 5);
}

TEST(ParamDict, shape_hint_is_not_a_parameter)
{
    ParamDict pd;
    ASSERT_EQ(parse(pd, "0=1 -23330=4,3,10,10,3"), 0);
    EXPECT_FALSE(pd.has(30));
    EXPECT_EQ(pd.get(0, 0), 1);
}

TEST(ParamDict, errors)
{
    const char* bad[] = {
        "32=1",             // id out of range
        "-1=1",             // negative plain id
        "-23332=1,1",       // array id 32
        "100=1",
        "0=1 0=2",          // duplicate id
        "-23300=1,1 0=3",   // duplicate id (array then scalar)
        "-23300=2,1,x",     // bad array element
        "-23300=3,1,2",     // count does not match
        "-23300=2,1,2,3",
        "-23300=-1",        // negative count
        "-23300=a,1",       // count not a number
        "5=1,abc",          // bad element in k=v1,v2 form
        "5=1,,2",           // empty element
        "x=1",              // key not a number
        "1.5=3",            // key not an integer
        "=3",               // no key
        "abc",              // not key=value
        "0=1 junk",
    };
    for (const char* line : bad)
    {
        LogCapture log;
        ParamDict pd;
        EXPECT_NE(parse(pd, line), 0) << "accepted: " << line;
        EXPECT_FALSE(log.lines.empty()) << "no message for: " << line;
    }
}

// KNOWN BUG (src/paramdict.cpp, ParamDict::load_param_text, the scalar branch
// at the end: "if (parse_number(val, ...)) ... else set(id, val)"): a scalar
// value that starts like a number but does not parse ("12abc", "1.2.3",
// "99999999999") is silently stored as a string, so the layer later reads its
// default instead of an error being reported. Only values that start with a
// letter or a quote should be strings (as ncnn's vstr_is_string). This test
// fails until that is fixed.
TEST(ParamDict, bad_scalar_numbers_are_errors)
{
    const char* bad[] = {"0=12abc", "1=1.2.3", "2=99999999999", "3=-", "4=1e", "5=0x10"};
    for (const char* line : bad)
    {
        LogCapture log;
        ParamDict pd;
        EXPECT_NE(parse(pd, line), 0) << "accepted: " << line << " (stored as type " << pd.type(line[0] - '0') << ")";
    }
}

TEST(ParamDict, set_get_conversions)
{
    ParamDict pd;
    pd.set(0, 3);
    pd.set(1, 2.75f);
    pd.set(2, IntArrayMat({1, 2}));
    pd.set(3, std::string("s"));
    pd.set(40, 1); // out of range: ignored
    EXPECT_EQ(pd.get(0, 0.f), 3.f);
    EXPECT_EQ(pd.get(1, 0), 2);
    EXPECT_EQ(pd.get(2, Mat()).w, 2);
    EXPECT_TRUE(pd.get(0, Mat()).empty());
    EXPECT_EQ(pd.get(3, ""), "s");
    pd.clear();
    EXPECT_FALSE(pd.has(0));
    EXPECT_FALSE(pd.has(2));
}

TEST(ParamDict, binary)
{
    BinWriter w;
    w.i(0);
    w.i(7); // id 0 = 7
    w.i(1);
    w.f(0.5f); // id 1 = 0.5f
    w.i(-23302);
    w.i(3);
    w.i(1);
    w.i(2);
    w.i(3); // array id 2
    w.i(-23303);
    w.i(2);
    w.f(1.5f);
    w.f(-2.f); // float array id 3
    w.i(-23404);
    w.str("hello"); // string id 4, padded to 8 bytes
    w.i(-23330);
    w.i(0); // shape hint: skipped
    w.i(-233);
    w.i(0x12345678); // the next layer's data, must not be consumed
    DataReaderFromMemory dr(w.bytes.data(), w.bytes.size());
    ParamDict pd;
    ASSERT_EQ(pd.load_param_bin(dr, "test"), 0);
    EXPECT_EQ(dr.consumed(), w.bytes.size() - 4);
    EXPECT_EQ(pd.type(0), ParamDict::TYPE_RAW);
    EXPECT_EQ(pd.get(0, 0), 7);
    EXPECT_EQ(pd.get(1, 0.f), 0.5f);
    Mat a = pd.get(2, Mat());
    ASSERT_EQ(a.w, 3);
    EXPECT_EQ(int_at(a, 2), 3);
    Mat b = pd.get(3, Mat());
    ASSERT_EQ(b.w, 2);
    EXPECT_EQ(float_at(b, 0), 1.5f);
    EXPECT_EQ(float_at(b, 1), -2.f);
    EXPECT_EQ(pd.get(4, ""), "hello");
    EXPECT_FALSE(pd.has(30));
}

TEST(ParamDict, binary_errors)
{
    auto load = [](const BinWriter& w) {
        DataReaderFromMemory dr(w.bytes.data(), w.bytes.size());
        ParamDict pd;
        LogCapture log;
        int r = pd.load_param_bin(dr, "test");
        EXPECT_FALSE(r == 0) << "accepted";
        if (r != 0)
            EXPECT_FALSE(log.lines.empty());
        return r;
    };
    {
        BinWriter w; // no terminator
        w.i(0);
        w.i(1);
        load(w);
    }
    {
        BinWriter w; // value missing
        w.i(0);
        load(w);
    }
    {
        BinWriter w; // id out of range
        w.i(40);
        w.i(1);
        w.i(-233);
        load(w);
    }
    {
        BinWriter w; // array id out of range
        w.i(-23340);
        w.i(1);
        w.i(1);
        w.i(-233);
        load(w);
    }
    {
        BinWriter w; // negative array length
        w.i(-23300);
        w.i(-5);
        w.i(-233);
        load(w);
    }
    {
        BinWriter w; // array truncated
        w.i(-23300);
        w.i(1000);
        w.i(1);
        load(w);
    }
    {
        BinWriter w; // string truncated
        w.i(-23400);
        w.i(9);
        w.i(0x41414141);
        load(w);
    }
    {
        BinWriter w; // empty input
        load(w);
    }
}

TEST(ParamDict, through_a_net)
{
    Net net;
    work_around_input_bug(net);
    const char* param =
        "7767517\n"
        "2 2\n"
        "Input in0 0 1 in0 0=4 1=3 2=2 -23330=4,3,4,3,2\n"
        "ReLU relu0 1 1 in0 out0 0=1.5e-1\n";
    ASSERT_EQ(net.load_param_mem(param), 0);
    ASSERT_EQ(net.layers().size(), 2u);
    EXPECT_EQ(net.layer_param(0).get(0, 0), 4);
    EXPECT_EQ(net.layer_param(0).get(1, 0), 3);
    EXPECT_EQ(net.layer_param(0).get(2, 0), 2);
    EXPECT_FALSE(net.layer_param(0).has(30));
    EXPECT_FLOAT_EQ(net.layer_param(1).get(0, 0.f), 0.15f);
    // the shape hint reaches the blob
    const Mat& s = net.blobs()[0].shape;
    EXPECT_EQ(s.dims, 3);
    EXPECT_EQ(s.w, 4);
    EXPECT_EQ(s.h, 3);
    EXPECT_EQ(s.c, 2);

    // a bad parameter fails the whole load, with the line named
    LogCapture log;
    Net bad;
    work_around_input_bug(bad);
    const char* badparam =
        "7767517\n"
        "2 2\n"
        "Input in0 0 1 in0 0=4\n"
        "ReLU relu0 1 1 in0 out0 0=0.1 0=0.2\n";
    EXPECT_NE(bad.load_param_mem(badparam), 0);
    EXPECT_NE(log.all().find("line 4"), std::string::npos) << log.all();
    EXPECT_TRUE(bad.layers().empty());
}
