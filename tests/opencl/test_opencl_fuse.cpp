// Launch fusions of put-off OpenCL launches (cl::Session::defer) against the
// CPU, fp32 and fp16 image storage, recorded then replayed: a two-input
// Concat read through by a Slice after a ShuffleChannel, by a shuffle read
// by something else, by a channel Crop across the two inputs (the concat
// never runs), and downloaded (it runs); a channel Padding read through by a
// BinaryOp on either side or both (unaligned channel counts; the padding
// never runs) and by an activation (it runs); a concat of a put-off BinaryOp
// and a put-off activation read by a Slice; a constant Padding of the plane
// read by a depth-wise convolution (bottom/right zeros, stride 2; a value of
// 0.5 all round; zeros added to the convolution's own padding); a residual
// BinaryOp (+ ReLU) and Eltwise sum after a 1x1 convolution in its launch,
// the BinaryOp's other side a channel Padding (5 -> 12) read through; two
// channel Crops of one blob (a concat read through) in one launch (read by a
// concat that runs); a depth-wise convolution (stride 2 + ReLU, a padded
// input; own padding) and the 1x1 convolution after it (7 outputs + ReLU;
// 12 + a HardSwish layer) in one launch. The fused forward must record
// exactly 15 launches fewer than with every KITE_OPENCL_FUSE_* switch at 0
// (CONCAT, PAD, RESIDUAL, CROP, DWPW), with the same results.
#include "testutil.h"

#include "net.h"

#include "gpu/opencl/cl_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

using namespace kite;
using namespace kite::cl;
using namespace kite::test;

namespace {

const char kFuse[] = "7767517\n"
                     "43 65\n"
                     "Input in 0 1 data\n"
                     "Split sp 1 14 data a b c d e f g h i j k l m n\n"
                     "Slice s0 1 2 a a1 a2 -23300=2,5,-233\n"
                     "Split spa1 1 4 a1 a1x a1y a1z a1w\n"
                     "Split spa2 1 2 a2 a2x a2y\n"
                     "Sigmoid sg 1 1 a2x a2s\n"
                     "Concat c1 2 1 a1x a2s cat1\n"
                     "ShuffleChannel sh1 1 1 cat1 s1 0=2\n"
                     "Slice sl1 1 2 s1 p q -23300=2,6,-233\n"
                     "Concat c2 2 1 b c cat2\n"
                     "ShuffleChannel sh2 1 1 cat2 s2 0=3\n"
                     "Pooling pl 1 1 s2 r2 0=0 1=2 2=1\n"
                     "Concat c3 2 1 d e cat3\n"
                     "Split spc3 1 2 cat3 cat3a cat3b\n"
                     "Crop cr 1 1 cat3a z -23309=1,10 -23310=1,20 -23311=1,0\n"
                     "Crop cr3 1 1 cat3b z2 -23309=1,1 -23310=1,9 -23311=1,0\n"
                     "Concat c6 2 1 z z2 cat6\n"
                     "Concat c4 2 1 f g cat4\n"
                     "Padding pd1 1 1 a1y pp 8=2\n"
                     "BinaryOp add 2 1 a2y pp ad 0=0\n"
                     "ReLU r3 1 1 ad ad2\n"
                     "Padding pd2 1 1 h hp 8=4\n"
                     "Split sph 1 2 hp hp0 hp1\n"
                     "BinaryOp mul 2 1 hp0 hp1 hm 0=2\n"
                     "Padding pd3 1 1 a1z pz 8=3\n"
                     "Sigmoid sg3 1 1 pz pzs\n"
                     "Concat c5 2 1 hm ad2 cat5\n"
                     "Slice sl5 1 2 cat5 u v -23300=2,13,-233\n"
                     "Padding pd4 1 1 i px 1=2 3=2\n"
                     "ConvolutionDepthWise dw1 1 1 px dwo 0=12 1=3 3=2 5=1 6=108 7=12 9=1\n"
                     "Convolution pw1 1 1 dwo pwo 0=7 1=1 5=1 6=84 9=1\n"
                     "Padding pd5 1 1 j pj 0=1 1=1 2=2 3=1 5=0.5\n"
                     "ConvolutionDepthWise dw2 1 1 pj dw2o 0=12 1=3 5=1 6=108 7=12\n"
                     "Padding pd6 1 1 k pk 0=1 2=1\n"
                     "ConvolutionDepthWise dw3 1 1 pk dw3o 0=12 1=3 4=1 5=1 6=108 7=12\n"
                     "Convolution pw2 1 1 dw3o pw2o 0=12 1=1 5=1 6=144\n"
                     "HardSwish hs2 1 1 pw2o pw2hs\n"
                     "Convolution cv1 1 1 l cv1o 0=12 1=1 5=1 6=144\n"
                     "Padding pd7 1 1 a1w pw 8=7\n"
                     "BinaryOp add2 2 1 cv1o pw rs1 0=0\n"
                     "ReLU r4 1 1 rs1 rs1r\n"
                     "Convolution cv2 1 1 m cv2o 0=12 1=1 5=1 6=144\n"
                     "Eltwise es 2 1 n cv2o rs2 0=1\n";

const char* const kOuts[] = {"p", "q", "r2", "cat6", "cat4", "ad2", "hm", "pzs", "u", "v", "pwo", "dw2o", "pw2hs", "rs1r", "rs2"};

// the weights (fp32 tag, then the values) and biases of the convolutions in
// the order of the graph: dw1 (12 x 3 x 3), pw1 (7 x 12), dw2, dw3, pw2
// (12 x 12), cv1, cv2 (12 x 12)
std::vector<unsigned char> model_bin()
{
    const int sizes[7][2] = {{108, 12}, {84, 7}, {108, 12}, {108, 12}, {144, 12}, {144, 12}, {144, 12}};
    std::vector<unsigned char> v;
    for (int l = 0; l < 7; l++)
    {
        const int n = sizes[l][0], nb = sizes[l][1];
        Mat w = RandomMat(n, -0.5f, 0.5f), b = RandomMat(nb, -1.f, 1.f);
        const unsigned char tag[4] = {0, 0, 0, 0};
        v.insert(v.end(), tag, tag + 4);
        v.insert(v.end(), (const unsigned char*)w.data, (const unsigned char*)w.data + n * sizeof(float));
        v.insert(v.end(), (const unsigned char*)b.data, (const unsigned char*)b.data + nb * sizeof(float));
    }
    return v;
}

bool load(Net& net, bool gpu, bool fp16, const std::vector<unsigned char>& bin)
{
    net.opt.use_opencl = gpu;
    net.opt.use_vulkan_compute = false;
    net.opt.use_fp16_storage = fp16;
    net.opt.use_fp16_arithmetic = false;
    return net.load_param_mem(kFuse) == 0 && net.load_model(bin.data(), bin.size()) == bin.size();
}

const char* const kSwitches[] = {"KITE_OPENCL_FUSE_CONCAT", "KITE_OPENCL_FUSE_PAD", "KITE_OPENCL_FUSE_RESIDUAL",
                                 "KITE_OPENCL_FUSE_CROP", "KITE_OPENCL_FUSE_DWPW"};

void set_fusions(bool on)
{
    for (const char* e : kSwitches)
        setenv(e, on ? "1" : "0", 1);
}

// three forwards (recorded, then replayed) on the GPU against the CPU;
// returns the launches the first (recorded) forward took, -1 on failure
long long compare(bool fp16, bool fused)
{
    set_fusions(fused);
    reseed(31);
    const std::vector<unsigned char> bin = model_bin();
    Net gpu, cpu;
    EXPECT_TRUE(load(gpu, true, fp16, bin));
    EXPECT_TRUE(load(cpu, false, false, bin));
    const float tol = fp16 ? 2e-2f : 1e-4f;
    long long launches = -1;
    for (int it = 0; it < 3; it++)
    {
        // 12 channels: the slices and paddings are unaligned (5 + 7, 5 -> 7, 5 -> 8)
        Mat in = RandomMat(9, 7, 12, -3.f, 3.f);
        Extractor eg = gpu.create_extractor(), ec = cpu.create_extractor();
        EXPECT_EQ(eg.input("data", in), 0);
        EXPECT_EQ(ec.input("data", in), 0);
        const long long before = recorded_launch_count();
        for (const char* o : kOuts)
        {
            Mat g, c;
            EXPECT_EQ(eg.extract(o, g), 0) << o;
            EXPECT_EQ(ec.extract(o, c), 0) << o;
            if (g.w != c.w || g.h != c.h || g.c != c.c)
            {
                ADD_FAILURE() << o << ": shape " << g.w << "x" << g.h << "x" << g.c << " against " << c.w << "x" << c.h << "x" << c.c;
                return -1;
            }
            for (int q = 0; q < c.c; q++)
                for (int i = 0; i < c.w * c.h; i++)
                    if (std::fabs(g.channel(q)[i] - c.channel(q)[i]) > tol * std::max(1.f, std::fabs(c.channel(q)[i])))
                    {
                        ADD_FAILURE() << o << (fused ? " fused" : " unfused") << (fp16 ? " fp16" : " fp32") << " forward " << it
                                      << " channel " << q << " element " << i << ": " << g.channel(q)[i] << " against "
                                      << c.channel(q)[i] << " (seed " << seed() << ")";
                        return -1;
                    }
        }
        if (it == 0)
            launches = recorded_launch_count() - before;
        else
            EXPECT_GT(eg.gpu_run_stats().replayed, 0) << "forward " << it;
    }
    return launches;
}

void run(bool fp16)
{
    if (!Context::get(0))
        GTEST_SKIP() << "no OpenCL device";
    const long long fused = compare(fp16, true);
    const long long plain = compare(fp16, false);
    for (const char* e : kSwitches)
        unsetenv(e);
    ASSERT_GT(fused, 0);
    printf("%s: %lld launches fused, %lld unfused\n", fp16 ? "fp16 storage" : "fp32", fused, plain);
    // c1, c2, c3, c5, pd1, pd2, pd4, pd5, pd6, pd7 never run fused (c4 and
    // pd3 do), add2 (+ r4) and es run in cv1's and cv2's launches, cr and cr3
    // in one, dw1 in pw1's and dw3 in pw2's (+ hs2; dw2 runs alone)
    EXPECT_EQ(plain - fused, 15);
}

TEST(OpenCLFuse, Fp32)
{
    run(false);
}

TEST(OpenCLFuse, Fp16Storage)
{
    run(true);
}

} // namespace
