// The image layouts of seeds 000/001, pixel by pixel: a buffer of distinct
// values goes through buffer_to_image, the raw image is read back and every
// pixel lane is checked against the seeds' coordinate formulas (written out
// again here, independently of layout.cl), then image_to_buffer must give the
// buffer back. Sizes include C, I, O, W, H not divisible by 4. Also kite Mats
// of every dims and elempack 1/4/8, fp32 and fp16, through Session upload and
// download.
#include "testutil.h"

#include "gpu/opencl/cl_layout.h"
#include "gpu/opencl/cl_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace kite;
using namespace kite::cl;

namespace {

Context* device()
{
    Context* c = Context::get(0);
    if (!c)
        printf("no OpenCL device: skipped\n");
    return c;
}

// raw pixels of an image as floats (half images widened)
std::vector<float> read_pixels(Context* ctx, const Image& img)
{
    size_t n = (size_t)img.width * img.height * 4;
    std::vector<float> out(n);
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)img.width, (size_t)img.height, 1};
    if (img.half)
    {
        std::vector<unsigned short> h(n);
        EXPECT_EQ(api()->clEnqueueReadImage(ctx->upload_queue, img.mem, CL_TRUE, origin, region, 0, 0, h.data(), 0, nullptr, nullptr), CL_SUCCESS);
        for (size_t i = 0; i < n; i++)
            out[i] = float16_to_float32(h[i]);
    }
    else
        EXPECT_EQ(api()->clEnqueueReadImage(ctx->upload_queue, img.mem, CL_TRUE, origin, region, 0, 0, out.data(), 0, nullptr, nullptr), CL_SUCCESS);
    return out;
}

// the seeds' tables: the buffer index of lane k of pixel (i, j), or -1 (padding)
long seed_formula(int layout, int i, int j, int k, int a, int b, int c, int d)
{
    switch (layout)
    {
    case SEED_CHANNEL_MAJOR:
    {
        // P[i, j] = E[n, h, w, c] with n = j/H, h = j%H, w = i%W, c = i/W*4 + k (NHWC)
        int N = a, H = b, W = c, C = d;
        int n = j / H, h = j % H, w = i % W, ch = i / W * 4 + k;
        return ch < C ? (((long)n * H + h) * W + w) * C + ch : -1;
    }
    case SEED_HEIGHT_MAJOR:
    {
        // n = j%N, h = j/N*4 + k, w = i%W, c = i/W
        int N = a, H = b, W = c, C = d;
        int n = j % N, h = j / N * 4 + k, w = i % W, ch = i / W;
        return h < H ? (((long)n * H + h) * W + w) * C + ch : -1;
    }
    case SEED_WIDTH_MAJOR:
    {
        // n = j/H, h = j%H, w = i%Wb*4 + k, c = i/Wb, Wb = (W+3)/4
        int H = b, W = c, C = d, Wb = (W + 3) / 4;
        int n = j / H, h = j % H, w = i % Wb * 4 + k, ch = i / Wb;
        return w < W ? (((long)n * H + h) * W + w) * C + ch : -1;
    }
    case SEED_CONV_FILTER:
    {
        // P[m, n] = E[o, i, h, w]: o = n/HW*4 + k, i = m, h = T/W, w = T%W, T = n%HW (OIHW)
        int O = a, I = b, H = c, W = d, HW = c * d;
        int m = i, n = j, T = n % HW, o = n / HW * 4 + k;
        return o < O ? (((long)o * I + m) * H + T / W) * W + T % W : -1;
    }
    case SEED_DW_FILTER:
    {
        // P[m, n] = E[0, i, h, w]: i = n*4 + k, h = m/W, w = m%W (MIHW, M = 1)
        int I = a, H = b, W = c;
        int m = i, n = j, ch = n * 4 + k;
        return ch < I ? ((long)ch * H + m / W) * W + m % W : -1;
    }
    default:
    {
        // P[i, 0] = E[w], w = i*4 + k
        int w = i * 4 + k;
        return w < a ? w : -1;
    }
    }
}

void check_layout(Context* ctx, int layout, int a, int b, int c, int d, bool half)
{
    SCOPED_TRACE("layout " + std::to_string(layout) + " dims " + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + "," + std::to_string(d) + (half ? " half" : " float"));
    size_t count = (size_t)a * (b > 0 ? b : 1) * (c > 0 ? c : 1) * (d > 0 ? d : 1);
    std::vector<float> buf(count);
    for (size_t i = 0; i < count; i++)
        buf[i] = (float)(i % 2000) + 1.f; // exact in half; 0 marks padding
    Image img;
    ASSERT_EQ(upload_seed_layout(ctx, layout, buf.data(), count, a, b, c, d, half, img), 0);
    int iw = 0, ih = 0;
    seed_image_size(layout, a, b, c, d, iw, ih);
    ASSERT_EQ(img.width, iw);
    ASSERT_EQ(img.height, ih);
    std::vector<float> px = read_pixels(ctx, img);
    std::vector<int> seen(count, 0);
    int bad = 0;
    for (int j = 0; j < ih; j++)
        for (int i = 0; i < iw; i++)
            for (int k = 0; k < 4; k++)
            {
                long idx = seed_formula(layout, i, j, k, a, b, c, d);
                float want = idx >= 0 ? buf[idx] : 0.f;
                float got = px[((size_t)j * iw + i) * 4 + k];
                if (idx >= 0)
                    seen[idx]++;
                if (got != want && bad++ < 5)
                    ADD_FAILURE() << "pixel (" << i << "," << j << ") lane " << k << ": " << got << ", want " << want;
            }
    // every element lands in exactly one pixel lane
    for (size_t i = 0; i < count; i++)
        if (seen[i] != 1 && bad++ < 5)
            ADD_FAILURE() << "element " << i << " appears " << seen[i] << " times";
    std::vector<float> back(count, -1.f);
    ASSERT_EQ(download_seed_layout(ctx, layout, img, back.data(), count, a, b, c, d), 0);
    for (size_t i = 0; i < count; i++)
        if (back[i] != buf[i] && bad++ < 5)
            ADD_FAILURE() << "round trip element " << i << ": " << back[i] << ", want " << buf[i];
    ctx->release_image(img);
}

TEST(OpenCLLayout, SeedFormulas)
{
    Context* ctx = device();
    if (!ctx)
        GTEST_SKIP();
    for (int half = 0; half < 2; half++)
    {
        // activations N, H, W, C
        const int act[][4] = {{1, 5, 7, 3}, {2, 3, 5, 9}, {1, 1, 1, 1}, {3, 6, 4, 8}, {2, 7, 9, 13}};
        for (auto& s : act)
            for (int l : {SEED_CHANNEL_MAJOR, SEED_HEIGHT_MAJOR, SEED_WIDTH_MAJOR})
                check_layout(ctx, l, s[0], s[1], s[2], s[3], half);
        // conv filter O, I, H, W
        const int conv[][4] = {{5, 3, 3, 3}, {8, 7, 1, 1}, {3, 9, 3, 2}, {13, 4, 5, 5}};
        for (auto& s : conv)
            check_layout(ctx, SEED_CONV_FILTER, s[0], s[1], s[2], s[3], half);
        // depth-wise filter I, H, W
        const int dw[][3] = {{5, 3, 3}, {8, 3, 3}, {13, 5, 2}, {1, 1, 1}};
        for (auto& s : dw)
            check_layout(ctx, SEED_DW_FILTER, s[0], s[1], s[2], 1, half);
        for (int w : {1, 4, 7, 130})
            check_layout(ctx, SEED_ARGUMENT, w, 1, 1, 1, half);
    }
}

// kite Mat (any dims, elempack 1/4/8, fp32/fp16) -> channel-major image -> Mat
TEST(OpenCLLayout, MatRoundTrip)
{
    Context* ctx = device();
    if (!ctx)
        GTEST_SKIP();
    test::reseed(11);
    std::vector<Mat> mats = {test::RandomMat(9), test::RandomMat(5, 12), test::RandomMat(7, 5, 13),
                             test::RandomMat(4, 3, 2, 8), test::RandomMat(3, 2, 24)};
    for (int half = 0; half < 2; half++)
        for (const Mat& m0 : mats)
            for (int pack : {1, 4, 8})
            {
                Option opt;
                opt.use_fp16_storage = half;
                Mat m = m0;
                if (pack > 1)
                {
                    Mat p;
                    convert_packing(m0, p, pack, opt);
                    if (p.elempack != pack)
                        continue;
                    m = p;
                }
                if (half)
                {
                    Mat h;
                    cast_float32_to_float16(m, h, opt);
                    m = h;
                }
                Session s(ctx, opt);
                GpuBlobPtr g;
                ASSERT_EQ(s.upload(m, g, nullptr, opt), 0);
                const ClBlob* b = static_cast<const ClBlob*>(g.get());
                // the channel-major pixel formula for N = 1
                int C, H, W;
                mat_chw(m0, C, H, W);
                ASSERT_EQ(b->image.width, W * div4(C));
                ASSERT_EQ(b->image.height, H);
                ASSERT_EQ(s.finish(), 0);
                std::vector<float> px = read_pixels(ctx, b->image);
                const float* src = m0;
                int bad = 0;
                for (int j = 0; j < H; j++)
                    for (int i = 0; i < W * div4(C); i++)
                        for (int k = 0; k < 4; k++)
                        {
                            int c = i / W * 4 + k, w = i % W;
                            float want = 0.f;
                            if (c < C)
                            {
                                size_t off = m0.dims <= 2 ? (size_t)c * H * W + j : (size_t)c * m0.cstep + (size_t)j * W + w;
                                want = src[off];
                                if (half)
                                    want = float16_to_float32(float32_to_float16(want));
                            }
                            float got = px[((size_t)j * b->image.width + i) * 4 + k];
                            if (got != want && bad++ < 5)
                                ADD_FAILURE() << "dims " << m0.dims << " pack " << pack << " half " << half << " pixel (" << i << "," << j << ") lane " << k << ": " << got << " want " << want;
                        }
                Mat back;
                ASSERT_EQ(s.download(g, back, opt), 0);
                Mat want = m0;
                if (half)
                {
                    Mat h;
                    cast_float32_to_float16(m0, h, opt);
                    cast_float16_to_float32(h, want, opt);
                }
                std::string diff = test::compare_mat(back, want, 0.f);
                EXPECT_TRUE(diff.empty()) << "dims " << m0.dims << " pack " << pack << " half " << half << ": " << diff;
            }
}

} // namespace
