// The deployment API (gpu/opencl/opencl.h): settings() round trip, and a
// layer run after set_settings() writes its compiled programs into the
// binary cache directory given and its tuned local sizes into the
// tuned-parameter file given; naming another file later makes the next
// launches use (and write) that one.
#include "testutil.h"

#include "gpu/opencl/cl_runtime.h"
#include "gpu/opencl/opencl.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace kite;
using namespace kite::test;

namespace {

int count_files(const std::string& dir, const std::string& prefix)
{
    int n = 0;
    DIR* d = opendir(dir.c_str());
    if (!d)
        return 0;
    while (dirent* e = readdir(d))
        if (std::string(e->d_name).compare(0, prefix.size(), prefix) == 0)
            n++;
    closedir(d);
    return n;
}

int count_lines(const std::string& path)
{
    std::ifstream f(path);
    int n = 0;
    std::string line;
    while (std::getline(f, line))
        n += !line.empty();
    return n;
}

std::string run_conv()
{
    ParamDict pd;
    pd.set(0, 6);  // num_output
    pd.set(1, 3);  // kernel
    pd.set(4, 1);  // pad
    pd.set(5, 1);  // bias
    pd.set(6, 6 * 5 * 9);
    return test_layer("Convolution", pd, {RandomMat(6 * 5 * 9), RandomMat(6)}, {RandomMat(9, 7, 5)});
}

} // namespace

TEST(OpenCLSettings, BinaryCacheAndTunedFile)
{
    if (!cl::Context::get(0))
    {
        printf("no OpenCL device: skipped\n");
        return;
    }
    char tmpl[] = "/tmp/kite-opencl-settings-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;

    opencl::Settings s = opencl::settings();
    s.binary_cache_dir = dir + "/bin";
    s.tuned_parameter_file = dir + "/tuned-a.txt";
    s.tune = true;
    s.kernel_time_limit_ms = 0;
    opencl::set_settings(s);
    opencl::Settings got = opencl::settings();
    EXPECT_EQ(got.binary_cache_dir, s.binary_cache_dir);
    EXPECT_EQ(got.tuned_parameter_file, s.tuned_parameter_file);
    EXPECT_TRUE(got.tune);

    KITE_EXPECT_LAYER_OK(run_conv());
    // this process built conv.cl and layout.cl first: both land in the new directory
    EXPECT_GE(count_files(dir + "/bin", "opencl-conv-"), 1);
    EXPECT_GE(count_files(dir + "/bin", "opencl-layout-"), 1);
    const int a = count_lines(dir + "/tuned-a.txt");
    EXPECT_GE(a, 2) << "the tuner wrote no entries for the upload and conv launches";

    // another tuned-parameter file: the next launches are tuned again into it
    s.tuned_parameter_file = dir + "/tuned-b.txt";
    opencl::set_settings(s);
    KITE_EXPECT_LAYER_OK(run_conv());
    EXPECT_GE(count_lines(dir + "/tuned-b.txt"), 2);
    EXPECT_EQ(count_lines(dir + "/tuned-a.txt"), a);

    // tuning off, a kernel time limit: results stay right, the file is not written
    s.tune = false;
    s.kernel_time_limit_ms = 1e-6;
    s.tuned_parameter_file = dir + "/tuned-c.txt";
    opencl::set_settings(s);
    KITE_EXPECT_LAYER_OK(run_conv());
    EXPECT_EQ(count_lines(dir + "/tuned-c.txt"), 0);

    std::string cmd = "rm -rf '" + dir + "'";
    EXPECT_EQ(system(cmd.c_str()), 0);
}
