// Constants (weights, index maps) on Vulkan: sub-allocated from shared
// device allocations, filled at flush time (several threads), staged or
// written in place, fp32 or fp16; every value must come back as uploaded.
#include "gpu/vulkan/vk_runtime.h"
#include "testutil.h"

#include <gtest/gtest.h>

#include <vector>

using namespace kite;

namespace {

// download a constant and compare it with the fp32 values it was made from
void expect_values(vk::Session& s, const vk::VkBlobPtr& b, const Mat& want, bool half, const char* what)
{
    Mat got;
    ASSERT_EQ(s.download(b, got, Option()), 0) << what;
    ASSERT_EQ((size_t)got.w * got.h * got.c, (size_t)want.w) << what;
    const float* g = got;
    const float* w = want;
    for (int i = 0; i < want.w; i++)
    {
        const float expect = half ? float16_to_float32(float32_to_float16(w[i])) : w[i];
        ASSERT_EQ(g[i], expect) << what << ": value " << i << " (seed " << test::seed() << ")";
    }
}

void run_constants(vk::VulkanDevice* dev)
{
    // sizes across the first chunk boundary (16 MB)
    const int sizes[] = {1, 3, 1000, 3 << 20, 2 << 20, 17, 300000, 2};
    std::vector<Mat> values;
    std::vector<vk::VkBlobPtr> blobs;
    std::vector<bool> halves;
    for (int i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++)
    {
        Mat m = test::RandomMat(sizes[i]);
        const bool half = i % 3 == 1;
        vk::VkBlobPtr b = dev->upload_constant(m, m, half);
        ASSERT_TRUE(b);
        EXPECT_EQ(b->shape.elemsize, half ? 2u : 4u);
        values.push_back(m);
        blobs.push_back(b);
        halves.push_back(half);
        // a constant dropped before the flush is skipped
        Mat gone = test::RandomMat(7);
        ASSERT_TRUE(dev->upload_constant(gone, gone));
    }
    // the raw-pointer form copies at once: the caller's buffer may go
    std::vector<float> tmp(33);
    for (size_t i = 0; i < tmp.size(); i++)
        tmp[i] = (float)i - 7.5f;
    Mat shape((int)tmp.size(), (void*)nullptr);
    vk::VkBlobPtr copied = dev->upload_constant(shape, tmp.data());
    ASSERT_TRUE(copied);
    Mat expect_copy = Mat((int)tmp.size(), tmp.data()).clone();
    tmp.assign(tmp.size(), 0.f);
    ASSERT_EQ(dev->flush_constants(), 0);
    vk::Session s(dev);
    ASSERT_TRUE(s.ok());
    for (size_t i = 0; i < blobs.size(); i++)
        expect_values(s, blobs[i], values[i], halves[i], "constant");
    expect_values(s, copied, expect_copy, false, "copied constant");
}

} // namespace

TEST(VulkanConstants, InPlaceAndStaged)
{
    test::reseed(3);
    vk::VulkanDevice* dev = vk::VulkanDevice::get(0);
    if (!dev)
    {
        printf("no Vulkan device: skipped\n");
        return;
    }
    if (dev->constants_in_place())
        run_constants(dev);
    dev->stage_constants();
    run_constants(dev);
    // several copy submits through one staging buffer (a constant larger
    // than the batch goes alone)
    dev->limit_staging_batch((size_t)3 << 20);
    run_constants(dev);
    dev->limit_staging_batch((size_t)64 << 20);
}

TEST(VulkanConstants, BadSourceIsAnError)
{
    vk::VulkanDevice* dev = vk::VulkanDevice::get(0);
    if (!dev)
        return;
    Mat a = test::RandomMat(10);
    Mat wrong = test::RandomMat(11);
    EXPECT_FALSE(dev->upload_constant(a, wrong));
    Mat h;
    cast_float32_to_float16(a, h);
    EXPECT_FALSE(dev->upload_constant(a, h));
}
