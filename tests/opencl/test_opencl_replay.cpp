// Recorded OpenCL forwards replayed (cl::Session): every recorded launch has a
// kernel of its own with its arguments set once, so launches of one kernel
// with different arguments must each keep theirs at a replay; where the
// device has cl_khr_command_buffer (PoCL does) a segment replays as one
// command buffer, and KITE_OPENCL_COMMAND_BUFFER=0 replays launch by launch.
// Both are checked against the same arithmetic on the host with new input
// data at every replay. Also a graph of channel shuffles and slices against
// the CPU: a ShuffleChannel's launch is put off, a Slice reads through it, and
// the shuffle runs only where something else reads its output (a ReLU, a
// download, another shuffle).
#include "testutil.h"

#include "net.h"

#include "gpu/opencl/cl_ops.h"
#include "gpu/opencl/cl_runtime.h"
#include "common/activation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace kite;
using namespace kite::cl;
using namespace kite::test;

namespace {

// relu(x), then leaky(relu(x)) with slope 0.25 (no change: all >= 0), and
// clip(x, -0.3, 0.4): three launches of eltwise.cl's activation
void reference(const Mat& x, Mat& a2, Mat& a3)
{
    a2.create(x.w, x.h, x.c);
    a3.create(x.w, x.h, x.c);
    for (int q = 0; q < x.c; q++)
        for (int i = 0; i < x.w * x.h; i++)
        {
            const float v = x.channel(q)[i];
            const float r = std::max(v, 0.f);
            a2.channel(q)[i] = r > 0 ? r : r * 0.25f;
            a3.channel(q)[i] = std::min(std::max(v, -0.3f), 0.4f);
        }
}

void expect_equal(const Mat& got, const Mat& want, const std::string& what)
{
    ASSERT_EQ(got.w, want.w) << what;
    ASSERT_EQ(got.h, want.h) << what;
    ASSERT_EQ(got.c, want.c) << what;
    for (int q = 0; q < want.c; q++)
        for (int i = 0; i < want.w * want.h; i++)
            ASSERT_NEAR(got.channel(q)[i], want.channel(q)[i], 1e-6f) << what << " channel " << q << " element " << i << " (seed " << seed() << ")";
}

// whether the device lists cl_khr_command_buffer (a whole word)
bool device_has_command_buffer(Context* ctx)
{
    size_t n = 0;
    api()->clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, nullptr, &n);
    std::string ext(n, '\0');
    api()->clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, n, &ext[0], nullptr);
    ext = " " + std::string(ext.c_str()) + " ";
    return ext.find(" cl_khr_command_buffer ") != std::string::npos;
}

void run(bool command_buffer)
{
    Context* ctx = Context::get(0);
    if (!ctx)
        GTEST_SKIP() << "no OpenCL device";
    setenv("KITE_OPENCL_COMMAND_BUFFER", command_buffer ? "1" : "0", 1);
    Option opt;
    opt.use_fp16_storage = false;
    opt.use_fp16_arithmetic = false;
    opt.use_packing_layout = false;
    Session s(ctx, opt);
    ASSERT_NE(s.queue, nullptr);
    ASSERT_TRUE(s.start_recording());
    reseed(17);
    Mat x = RandomMat(13, 7, 6);
    GpuBlobPtr g, a1, a2, a3;
    ASSERT_EQ(s.upload(x, g, nullptr, opt), 0);
    ASSERT_EQ(run_activation(s, g, a1, ACTIVATION_RELU, 0.f, 0.f), 0);
    ASSERT_EQ(run_activation(s, a1, a2, ACTIVATION_LEAKYRELU, 0.25f, 0.f), 0);
    ASSERT_EQ(run_activation(s, g, a3, ACTIVATION_CLIP, -0.3f, 0.4f), 0);
    Mat m2, m3, r2, r3;
    ASSERT_EQ(s.download(a2, m2, opt), 0);
    ASSERT_EQ(s.download(a3, m3, opt), 0);
    reference(x, r2, r3);
    expect_equal(m2, r2, "recorded relu+leaky");
    expect_equal(m3, r3, "recorded clip");
    s.stop_recording();
    ASSERT_EQ(s.upload_slots(), 1);
    ASSERT_EQ(s.download_slots(), 2);
    for (int it = 0; it < 3; it++)
    {
        Mat y = RandomMat(13, 7, 6, -2.f, 2.f);
        ASSERT_EQ(s.replay_upload(0, y, opt), 0);
        ASSERT_EQ(s.replay_download(0, m2, opt), 0);
        ASSERT_EQ(s.replay_download(1, m3, opt), 0);
        reference(y, r2, r3);
        expect_equal(m2, r2, "replay " + std::to_string(it) + " relu+leaky");
        expect_equal(m3, r3, "replay " + std::to_string(it) + " clip");
    }
    const CommandBufferApi& cb = ctx->command_buffer;
    const bool listed = device_has_command_buffer(ctx);
    if (listed && cb.version.compare(0, 4, "0.9.") == 0)
        EXPECT_TRUE(cb.usable()) << cb.why_not;
    if (command_buffer && cb.usable())
        EXPECT_EQ(s.command_buffer_replays(), 6) << "each replayed segment is one command buffer";
    else
        EXPECT_EQ(s.command_buffer_replays(), 0);
    printf("%s: cl_khr_command_buffer %s (%s), %lld command-buffer replays\n", ctx->device_name.c_str(),
           listed ? cb.version.c_str() : "absent", cb.usable() ? "usable" : cb.why_not.c_str(), s.command_buffer_replays());
    unsetenv("KITE_OPENCL_COMMAND_BUFFER");
}

// shuffles read by a Slice (5 + 7 channels: unaligned), by a ReLU, by a
// download, by another shuffle then a 3-way Slice, by a channel Crop; a
// Slice and a Crop of a plain blob
const char kShuffles[] = "7767517\n"
                         "14 24\n"
                         "Input in 0 1 data\n"
                         "Split sp 1 7 data a b c d e f g\n"
                         "ShuffleChannel sh1 1 1 a s1 0=2\n"
                         "Slice sl 1 2 s1 p q -23300=2,5,-233\n"
                         "ShuffleChannel sh2 1 1 b s2 0=3 1=1\n"
                         "ReLU r 1 1 s2 r2 0=0.1\n"
                         "ShuffleChannel sh3 1 1 c s3 0=4\n"
                         "ShuffleChannel sh4 1 1 d s4 0=2\n"
                         "ShuffleChannel sh5 1 1 s4 s5 0=3\n"
                         "Slice sl2 1 3 s5 u v w -23300=3,4,4,-233\n"
                         "Slice sl3 1 2 e x y -23300=2,8,-233\n"
                         "ShuffleChannel sh6 1 1 f s6 0=2\n"
                         "Crop cr 1 1 s6 z -23309=1,3 -23310=1,8 -23311=1,0\n"
                         "Crop cr2 1 1 g zz -23309=1,4 -23310=1,12 -23311=1,0\n";

// element-wise layers put off and the activation after them in their
// launch: BinaryOp + ReLU, per-channel BinaryOp + Sigmoid, scalar BinaryOp +
// HardSwish, Eltwise + leaky ReLU; an Eltwise read by an activation and by a
// download (it runs alone too), a BinaryOp of a put-off BinaryOp, a Swish on
// a plain blob; put-off activations read by a per-channel BinaryOp (the small
// side, either way round), by another activation and by a download
const char kElementwise[] = "7767517\n"
                            "23 36\n"
                            "Input in 0 1 data\n"
                            "Input in2 0 1 chan\n"
                            "Split sp 1 8 data a b c d e f g h\n"
                            "Split spc 1 3 chan chan0 chan1 chan2\n"
                            "BinaryOp add 2 1 a b ab 0=0\n"
                            "ReLU r1 1 1 ab r1\n"
                            "BinaryOp mul 2 1 c chan0 cm 0=2\n"
                            "Sigmoid sg 1 1 cm sg\n"
                            "BinaryOp rsub 1 1 d ds 0=7 1=1 2=0.5\n"
                            "HardSwish hs 1 1 ds hs\n"
                            "Eltwise sum 2 1 e f ef 0=1 -23301=2,0.5,2.0\n"
                            "Split sp2 1 2 ef ef0 ef1\n"
                            "ReLU r2 1 1 ef0 r2 0=0.1\n"
                            "BinaryOp sub 2 1 ab cm abc 0=1\n"
                            "Swish sw 1 1 abc sw\n"
                            "Split sp3 1 1 ef1 ef2\n"
                            "HardSigmoid hsg 1 1 chan1 hsg 0=0.2 1=0.5\n"
                            "BinaryOp smul 2 1 g hsg sm 0=2\n"
                            "Sigmoid sg2 1 1 chan2 sg2\n"
                            "Split sp4 1 2 sg2 sg2a sg2b\n"
                            "BinaryOp sdiv 2 1 sg2a h sd 0=3\n"
                            "ReLU r3 1 1 sg2b r3a\n"
                            "TanH th 1 1 r3a th\n";

bool load(Net& net, bool gpu, const char* param)
{
    net.opt.use_opencl = gpu;
    net.opt.use_vulkan_compute = false;
    net.opt.use_fp16_storage = false;
    net.opt.use_fp16_arithmetic = false;
    return net.load_param_mem(param) == 0 && net.load_model_empty() == 0; // no weights
}

// the graph on the GPU and on the CPU, three forwards (recorded, then replayed)
void compare_graph(const char* param, const std::vector<std::string>& outs, bool two_inputs)
{
    if (!Context::get(0))
        GTEST_SKIP() << "no OpenCL device";
    Net gpu, cpu;
    ASSERT_TRUE(load(gpu, true, param));
    ASSERT_TRUE(load(cpu, false, param));
    reseed(23);
    for (int it = 0; it < 3; it++)
    {
        Mat in = RandomMat(9, 7, 12, -3.f, 3.f);
        Mat chan = RandomMat(1, 1, 12);
        Extractor eg = gpu.create_extractor(), ec = cpu.create_extractor();
        ASSERT_EQ(eg.input("data", in), 0);
        ASSERT_EQ(ec.input("data", in), 0);
        if (two_inputs)
        {
            ASSERT_EQ(eg.input("chan", chan), 0);
            ASSERT_EQ(ec.input("chan", chan), 0);
        }
        for (const std::string& os : outs)
        {
            const char* o = os.c_str();
            Mat g, c;
            ASSERT_EQ(eg.extract(o, g), 0) << o;
            ASSERT_EQ(ec.extract(o, c), 0) << o;
            ASSERT_EQ(g.w, c.w) << o;
            ASSERT_EQ(g.h, c.h) << o;
            ASSERT_EQ(g.c, c.c) << o;
            for (int q = 0; q < c.c; q++)
                for (int i = 0; i < c.w * c.h; i++)
                    ASSERT_NEAR(g.channel(q)[i], c.channel(q)[i], 1e-4f * std::max(1.f, std::fabs(c.channel(q)[i])))
                        << o << " forward " << it << " channel " << q << " element " << i << " (seed " << seed() << ")";
        }
        if (it > 0)
            EXPECT_GT(eg.gpu_run_stats().replayed, 0) << "forward " << it;
    }
}

TEST(OpenCLReplay, ShuffleSliceGraph)
{
    compare_graph(kShuffles, {"p", "q", "r2", "s3", "u", "v", "w", "x", "y", "z", "zz"}, false);
}

TEST(OpenCLReplay, ActivationAfterElementwise)
{
    compare_graph(kElementwise, {"r1", "sg", "hs", "r2", "ef2", "sw", "sm", "sd", "sg2b", "th"}, true);
}

TEST(OpenCLReplay, CommandBuffer)
{
    run(true);
}

TEST(OpenCLReplay, LaunchByLaunch)
{
    run(false);
}

} // namespace
