// Hostile sizes (issue 20): declared shapes and weight counts past
// Option::memory_limit (default: the machine's physical memory) fail at
// load, naming the layer, before anything of that size is allocated (an
// allocation hook records the largest request).
#include "allocator_hook.h"
#include "log.h"
#include "net.h"
#include "option.h"

#include <gtest/gtest.h>

#include <string>

using namespace kite;
namespace {

size_t g_largest = 0;
std::string g_log;
void capture_log(int, const char* message, void*)
{
    g_log += message;
    g_log += "\n";
}
bool record_largest(size_t size, void*)
{
    if (size > g_largest)
        g_largest = size;
    return true;
}

} // namespace

TEST(MemoryLimit, default_is_physical_memory)
{
    Option opt;
    EXPECT_EQ(opt.memory_limit, physical_memory_bytes());
#if defined(__linux__)
    EXPECT_GT(opt.memory_limit, (size_t)0);
#endif
}

TEST(MemoryLimit, declared_shapes_fail_at_load_param)
{
    struct Case
    {
        const char* what;
        const char* param;
        const char* layer;
    } cases[] = {
        {"Input of 4e13 bytes", "7767517\n1 1\nInput data 0 1 data 0=100000 1=100000 2=1000\n", "'data'"},
        {"Input whose size overflows", "7767517\n1 1\nInput data 0 1 data 0=2147483647 1=2147483647 11=2147483647 2=2147483647\n",
         "'data'"},
        {"a shape hint of 4e13 bytes",
         "7767517\n2 2\nInput data 0 1 data 0=8 1=8 2=3\nReLU relu 1 1 data out -23330=4,3,100000,100000,1000\n", "'relu'"},
    };
    for (const Case& c : cases)
    {
        Net net;
        clear_last_error();
        g_largest = 0;
        set_allocation_hook(record_largest, nullptr);
        const int ret = net.load_param_mem(c.param);
        set_allocation_hook(nullptr, nullptr);
        EXPECT_EQ(ret, -100) << c.what;
        const std::string err = last_error();
        EXPECT_NE(err.find(c.layer), std::string::npos) << c.what << ": " << err;
        EXPECT_NE(err.find("memory limit"), std::string::npos) << c.what << ": " << err;
        EXPECT_LT(g_largest, (size_t)1 << 20) << c.what;
    }
    // the same shapes load where the limit is off
    Net net;
    net.opt.memory_limit = 0;
    EXPECT_EQ(net.load_param_mem("7767517\n1 1\nInput data 0 1 data 0=100000 1=100000 2=1000\n"), 0);
}

TEST(MemoryLimit, weights_fail_at_load_model)
{
    // 8 GB of weights in one layer; then two layers of 40 MB under a 64 MB limit
    const char* huge = "7767517\n2 2\nInput data 0 1 data 0=100000\nInnerProduct fc 1 1 data out 0=100000 2=2000000000\n";
    const char* two = "7767517\n3 3\nInput data 0 1 data 0=1000\nInnerProduct fc1 1 1 data a 0=10000 2=10000000\n"
                      "InnerProduct fc2 1 1 a out 0=1000 2=10000000\n";
    const size_t limit = (size_t)64 << 20;
    struct Case
    {
        const char* param;
        const char* layer;
    } cases[] = {{huge, "'fc'"}, {two, "'fc2'"}};
    for (const Case& c : cases)
    {
        Net net;
        net.opt.memory_limit = limit;
        ASSERT_EQ(net.load_param_mem(c.param), 0) << c.layer;
        g_log.clear();
        g_largest = 0;
        set_log_sink(capture_log, nullptr);
        set_allocation_hook(record_largest, nullptr);
        const int ret = net.load_model_empty();
        set_allocation_hook(nullptr, nullptr);
        set_log_sink(nullptr, nullptr);
        EXPECT_NE(ret, 0) << c.layer;
        EXPECT_LE(g_largest, limit) << c.layer;
        // the limit's own line names the layer
        const std::string line = "layer " + std::string(c.layer);
        EXPECT_NE(g_log.find(line + " (InnerProduct): its weights"), std::string::npos) << g_log;
        EXPECT_NE(g_log.find("memory limit of " + std::to_string(limit)), std::string::npos) << g_log;
    }
    // within the limit the same graph loads
    Net net;
    net.opt.memory_limit = (size_t)128 << 20;
    ASSERT_EQ(net.load_param_mem(two), 0);
    EXPECT_EQ(net.load_model_empty(), 0);
}
