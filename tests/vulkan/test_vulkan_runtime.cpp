// The Vulkan runtime on its own: device, pools, upload/download of every
// layout, one dispatch, the pipeline cache file; the validation layer must
// report nothing (KITE_VULKAN_VALIDATION=1 is set by ctest).
#include "gpu/vulkan/vk_runtime.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace kite;

namespace {

vk::VulkanDevice* device_or_skip()
{
    vk::VulkanDevice* d = vk::VulkanDevice::get(0);
    if (!d)
        printf("no Vulkan device: skipped\n");
    return d;
}

Mat random_of_dims(int dims, int w, int h, int d, int c)
{
    if (dims == 1)
        return test::RandomMat(w);
    if (dims == 2)
        return test::RandomMat(w, h);
    if (dims == 3)
        return test::RandomMat(w, h, c);
    return test::RandomMat(w, h, d, c);
}

} // namespace

TEST(VulkanRuntime, UploadDownloadEveryLayout)
{
    test::reseed(1);
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    vk::Session s(dev);
    ASSERT_TRUE(s.ok());
    struct Shape
    {
        int dims, w, h, d, c;
    };
    const Shape shapes[] = {{1, 5, 1, 1, 1}, {1, 24, 1, 1, 1}, {2, 7, 8, 1, 1}, {2, 3, 5, 1, 1}, {3, 5, 3, 8, 1}, {3, 4, 3, 1, 12}, {3, 7, 3, 1, 5}, {4, 3, 2, 3, 8}, {4, 2, 2, 2, 3}};
    for (const Shape& sh : shapes)
    {
        Mat a = random_of_dims(sh.dims, sh.w, sh.h, sh.d, sh.dims == 3 ? sh.c : sh.c);
        if (sh.dims == 3)
            a = test::RandomMat(sh.w, sh.h, sh.c);
        for (int pack : {1, 4, 8})
        {
            for (int fp16 = 0; fp16 < 2; fp16++)
            {
                Option opt;
                Mat m = a;
                if (pack > 1)
                {
                    Mat p;
                    convert_packing(m, p, pack, opt);
                    if (p.elempack != pack)
                        continue;
                    m = p;
                }
                if (fp16)
                {
                    Mat h;
                    cast_float32_to_float16(m, h, opt);
                    m = h;
                }
                GpuBlobPtr g;
                ASSERT_EQ(s.upload(m, g, nullptr, opt), 0);
                ASSERT_TRUE(g);
                EXPECT_EQ(g->shape.dims, a.dims);
                Mat back;
                ASSERT_EQ(s.download(g, back, opt), 0);
                std::string c = test::compare_mat(back, a, fp16 ? 1e-3f : 0.f);
                EXPECT_TRUE(c.empty()) << "dims " << sh.dims << " pack " << pack << " fp16 " << fp16 << ": " << c;
            }
        }
    }
    EXPECT_EQ(vk::validation_error_count(), 0);
}

// A session with fp16 storage keeps fp16 blobs (elemsize 2) and converts on
// the way in and out; uploads of any CPU layout land in elempack 1
TEST(VulkanRuntime, Fp16StorageSession)
{
    test::reseed(2);
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    if (!dev->fp16_storage)
    {
        printf("no storageBuffer16BitAccess: skipped\n");
        return;
    }
    Option opt;
    opt.use_fp16_storage = true;
    EXPECT_EQ(dev->storage_elemsize(opt), 2u);
    opt.use_fp16_storage = false;
    EXPECT_EQ(dev->storage_elemsize(opt), 4u);
    vk::Session s(dev, 2);
    ASSERT_TRUE(s.ok());
    const Mat a = test::RandomMat(7, 5, 24);
    for (int pack : {1, 4, 8})
    {
        Mat m = a;
        if (pack > 1)
            convert_packing(a, m, pack, opt);
        GpuBlobPtr g;
        ASSERT_EQ(s.upload(m, g, nullptr, opt), 0);
        EXPECT_EQ(g->shape.elemsize, 2u * g->shape.elempack);
        Mat back;
        ASSERT_EQ(s.download(g, back, opt), 0);
        EXPECT_EQ(back.elemsize, 4u);
        std::string c = test::compare_mat(back, a, 1e-3f);
        EXPECT_TRUE(c.empty()) << "pack " << pack << ": " << c;
    }
    EXPECT_EQ(vk::validation_error_count(), 0);
}

// an fp32 blob in an fp16 session (VkBlob::f32: an int8 layer's dequantized
// output): 4 bytes a scalar, downloaded as it is, cast to the session's fp16
// by cast_f32.comp (one dispatch, listed by shader)
TEST(VulkanRuntime, Fp32BlobInFp16Session)
{
    test::reseed(3);
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    if (!dev->fp16_storage)
    {
        printf("no storageBuffer16BitAccess: skipped\n");
        return;
    }
    Option opt;
    const Mat a = test::RandomMat(9, 7, 12, -3.f, 3.f);
    // the fp32 values come from an fp32 session's upload (elempack 1: no
    // consumer), copied over once that session has finished
    vk::Session s32(dev, 4);
    // (a packed fp32 blob goes through packing.comp's fp32 variant: the
    // graph tests, squeezenet_ssd_int8 at fp16)
    GpuBlobPtr src;
    ASSERT_EQ(s32.upload(a, src, nullptr, opt), 0);
    ASSERT_EQ(s32.finish(), 0);
    vk::Session s(dev, 2);
    ASSERT_TRUE(s.ok());
    vk::VkBlobPtr f = s.create_blob(3, 9, 7, 1, 12, 1, true);
    ASSERT_TRUE(f);
    EXPECT_TRUE(f->f32);
    EXPECT_EQ(f->shape.elemsize, 4u);
    const vk::VkBlob* sb = static_cast<const vk::VkBlob*>(src.get());
    ASSERT_EQ(sb->shape.elemsize, 4u);
    ASSERT_EQ(s.copy(sb, 0, f.get(), 0, a.total() * 4), 0);
    Mat back;
    ASSERT_EQ(s.download(f, back, opt), 0);
    std::string c = test::compare_mat(back, a, 0.f);
    EXPECT_TRUE(c.empty()) << "fp32 blob: " << c;
    GpuBlobPtr h;
    ASSERT_EQ(s.cast_to_storage(f, h), 0);
    const vk::VkBlob* hb = static_cast<const vk::VkBlob*>(h.get());
    EXPECT_FALSE(hb->f32);
    EXPECT_EQ(hb->shape.elemsize, 2u);
    EXPECT_EQ(hb->shape.c, 12);
    ASSERT_EQ(s.download(h, back, opt), 0);
    c = test::compare_mat(back, a, 2e-3f);
    EXPECT_TRUE(c.empty()) << "cast to fp16: " << c;
    EXPECT_EQ(s.dispatch_counts().size(), 1u);
    EXPECT_EQ(s.dispatch_counts().count("cast_f32"), 1u);
    EXPECT_EQ(s.copy_count(), 1);
    // a session blob is not fp32: cast_to_storage passes it on
    GpuBlobPtr same;
    ASSERT_EQ(s.cast_to_storage(h, same), 0);
    EXPECT_EQ(same.get(), h.get());
    EXPECT_EQ(vk::validation_error_count(), 0);
}

// convert_packing on the device (the Net's conversion between layers that
// take other layouts): elempack 1 -> 4/8 -> 8/4 -> 1 for fp32 and fp16
// storage; a channel count that the elempack does not divide is refused
TEST(VulkanRuntime, DevicePackingRoundTrip)
{
    test::reseed(3);
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    for (size_t storage : {4u, 2u})
    {
        if (storage == 2 && !dev->fp16_storage)
            continue;
        vk::Session s(dev, storage);
        ASSERT_TRUE(s.ok());
        const Mat mats[] = {test::RandomMat(5, 3, 8), test::RandomMat(3, 2, 2, 12), test::RandomMat(4, 4, 6), test::RandomMat(3, 2, 2, 16)};
        for (const Mat& a : mats)
        {
            Option opt;
            GpuBlobPtr g;
            ASSERT_EQ(s.upload(a, g, nullptr, opt), 0);
            EXPECT_EQ(g->shape.elempack, 1);
            for (int pack : {4, 8})
            {
                // 1 -> pack -> the other packing (where the channels allow) -> 1
                GpuBlobPtr gp, go, g1;
                int r = s.convert_packing(g, gp, pack);
                if (a.c % pack != 0)
                {
                    EXPECT_NE(r, 0) << "packed " << a.c << " channels by " << pack;
                    continue;
                }
                ASSERT_EQ(r, 0);
                EXPECT_EQ(gp->shape.elempack, pack);
                EXPECT_EQ(gp->shape.c, a.c / pack);
                EXPECT_EQ(gp->shape.elemsize, storage * pack);
                const int other = pack == 4 ? 8 : 4;
                if (a.c % other == 0)
                    ASSERT_EQ(s.convert_packing(gp, go, other), 0);
                else
                    go = gp;
                ASSERT_EQ(s.convert_packing(go, g1, 1), 0);
                EXPECT_EQ(g1->shape.elempack, 1);
                for (const GpuBlobPtr& b : {gp, go, g1})
                {
                    Mat back;
                    ASSERT_EQ(s.download(b, back, opt), 0);
                    EXPECT_EQ(back.elempack, 1);
                    std::string c = test::compare_mat(back, a, storage == 2 ? 1e-3f : 0.f);
                    EXPECT_TRUE(c.empty()) << "storage " << storage << " dims " << a.dims << " elempack " << b->shape.elempack << ": " << c;
                }
            }
        }
    }
    EXPECT_EQ(vk::validation_error_count(), 0);
}

TEST(VulkanRuntime, DispatchChainReusesBuffers)
{
    test::reseed(2);
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    const vk::Pipeline* p = dev->pipeline("unary", 2, 64, 1, 1);
    ASSERT_TRUE(p);
    vk::Session s(dev);
    Option opt;
    Mat a = test::RandomMat(37, 5, 3, -4.f, 4.f);
    GpuBlobPtr g;
    ASSERT_EQ(s.upload(a, g, nullptr, opt), 0);
    vk::VkBlobPtr cur = std::static_pointer_cast<vk::VkBlob>(g);
    g.reset();
    // relu, then clip to [-1, 0.5], then leaky: each output released after use,
    // so the pool hands the same buffers back within one command buffer
    struct
    {
        int n, type;
        float p0, p1;
    } pc[3] = {{0, 1, 0.f, 0.f}, {0, 3, -1.f, 0.5f}, {0, 2, 0.1f, 0.f}};
    for (auto& c : pc)
    {
        vk::VkBlobPtr out = s.create_blob_like(cur->shape);
        ASSERT_TRUE(out);
        c.n = (int)cur->total();
        ASSERT_EQ(s.dispatch(p, {cur.get(), out.get()}, &c, sizeof(c), c.n, 1, 1), 0);
        cur = out;
    }
    // the listing by shader (KITE_VULKAN_DISPATCHES=1)
    ASSERT_EQ(s.dispatch_counts().size(), 1u);
    EXPECT_EQ(s.dispatch_counts().begin()->first, "unary");
    EXPECT_EQ(s.dispatch_counts().begin()->second, 3);
    Mat back;
    ASSERT_EQ(s.download(cur, back, opt), 0);
    ASSERT_EQ(back.c, 3);
    for (int q = 0; q < 3; q++)
        for (int i = 0; i < 37 * 5; i++)
        {
            float v = a.channel(q)[i];
            float want = std::min(std::max(std::max(v, 0.f), -1.f), 0.5f);
            EXPECT_EQ(back.channel(q)[i], want) << q << " " << i;
        }
    EXPECT_EQ(vk::validation_error_count(), 0);
}

TEST(VulkanRuntime, BadInputIsAnError)
{
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    vk::Session s(dev);
    Option opt;
    GpuBlobPtr g;
    EXPECT_NE(s.upload(Mat(), g, nullptr, opt), 0);
    EXPECT_NE(s.upload(Mat(16, (size_t)8u), g, nullptr, opt), 0); // 64-bit elements
    // int8 Mats (a CPU int8 layer's output) go up flagged and come back as int8
    Mat i8 = test::RandomS8Mat(16);
    ASSERT_EQ(s.upload(i8, g, nullptr, opt), 0);
    EXPECT_TRUE(static_cast<const vk::VkBlob*>(g.get())->int8);
    Mat back;
    ASSERT_EQ(s.download(g, back, opt), 0);
    ASSERT_EQ(back.elemsize, 1u);
    ASSERT_EQ(back.w, 16);
    EXPECT_EQ(memcmp(back.data, i8.data, 16), 0);
    EXPECT_EQ(dev->pipeline("no_such_shader", 2, 64, 1, 1), nullptr);
    EXPECT_EQ(vk::VulkanDevice::get(999), nullptr);
    EXPECT_EQ(vk::validation_error_count(), 0);
}

TEST(VulkanRuntime, PipelineCacheFileWritten)
{
    vk::VulkanDevice* dev = device_or_skip();
    if (!dev)
        return;
    const char* dir = getenv("KITE_VULKAN_CACHE_DIR");
    if (!dir || !dir[0])
        GTEST_SKIP() << "KITE_VULKAN_CACHE_DIR not set";
    ASSERT_TRUE(dev->pipeline("unary", 2, 32, 1, 1));
    dev->save_pipeline_cache();
    std::string cmd = std::string("ls ") + dir + "/vk_*.bin > /dev/null 2>&1";
    EXPECT_EQ(system(cmd.c_str()), 0) << "no cache file in " << dir;
}
