// Pixel conversion tests: every format pair against a per-pixel formula
// written here, strides, rounding/clamping, bilinear resize against a float
// bilinear computation, substract_mean_normalize.
#include "testutil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace kite;
using namespace kite::test;

namespace {

const int kFormats[] = {Mat::PIXEL_RGB, Mat::PIXEL_BGR, Mat::PIXEL_GRAY, Mat::PIXEL_RGBA, Mat::PIXEL_BGRA};

int channels_of(int f)
{
    return f == Mat::PIXEL_GRAY ? 1 : (f == Mat::PIXEL_RGB || f == Mat::PIXEL_BGR) ? 3 : 4;
}

const char* format_name(int f)
{
    switch (f)
    {
    case Mat::PIXEL_RGB: return "RGB";
    case Mat::PIXEL_BGR: return "BGR";
    case Mat::PIXEL_GRAY: return "GRAY";
    case Mat::PIXEL_RGBA: return "RGBA";
    case Mat::PIXEL_BGRA: return "BGRA";
    }
    return "?";
}

int make_type(int from, int to)
{
    return from == to ? from : from | (to << Mat::PIXEL_CONVERT_SHIFT);
}

struct Rgba
{
    int r, g, b, a;
};

Rgba decode(const unsigned char* p, int f)
{
    switch (f)
    {
    case Mat::PIXEL_RGB: return {p[0], p[1], p[2], 255};
    case Mat::PIXEL_BGR: return {p[2], p[1], p[0], 255};
    case Mat::PIXEL_RGBA: return {p[0], p[1], p[2], p[3]};
    case Mat::PIXEL_BGRA: return {p[2], p[1], p[0], p[3]};
    default: return {p[0], p[0], p[0], 255};
    }
}

// gray = 0.299 R + 0.587 G + 0.114 B in ncnn's 8-bit fixed point (77, 150, 29) / 256, truncated
int gray_of(const Rgba& v)
{
    return (v.r * 77 + v.g * 150 + v.b * 29) / 256;
}

// expected channel values of one converted pixel, in the order of format `to`
std::vector<int> expected_pixel(const unsigned char* p, int from, int to)
{
    Rgba v = decode(p, from);
    switch (to)
    {
    case Mat::PIXEL_RGB: return {v.r, v.g, v.b};
    case Mat::PIXEL_BGR: return {v.b, v.g, v.r};
    case Mat::PIXEL_RGBA: return {v.r, v.g, v.b, v.a};
    case Mat::PIXEL_BGRA: return {v.b, v.g, v.r, v.a};
    default: return {from == Mat::PIXEL_GRAY ? v.r : gray_of(v)};
    }
}

std::vector<unsigned char> random_pixels(size_t n)
{
    std::vector<unsigned char> v(n);
    for (auto& x : v)
        x = (unsigned char)rand_int(0, 255);
    return v;
}

float at(const Mat& m, int q, int y, int x)
{
    return ((const float*)m.channel(q).data)[(size_t)y * m.w + x];
}

// independent float bilinear resize with half-pixel centres and edge clamping
std::vector<float> reference_resize(const unsigned char* src, int srcw, int srch, int srcstride, int cn, int w, int h)
{
    std::vector<float> out((size_t)w * h * cn);
    for (int y = 0; y < h; y++)
    {
        double fy = (y + 0.5) * srch / h - 0.5;
        fy = std::min(std::max(fy, 0.0), (double)(srch - 1));
        int y0 = (int)std::floor(fy);
        int y1 = std::min(y0 + 1, srch - 1);
        double ty = fy - y0;
        for (int x = 0; x < w; x++)
        {
            double fx = (x + 0.5) * srcw / w - 0.5;
            fx = std::min(std::max(fx, 0.0), (double)(srcw - 1));
            int x0 = (int)std::floor(fx);
            int x1 = std::min(x0 + 1, srcw - 1);
            double tx = fx - x0;
            for (int k = 0; k < cn; k++)
            {
                auto px = [&](int yy, int xx) { return (double)src[(size_t)yy * srcstride + xx * cn + k]; };
                double top = px(y0, x0) * (1 - tx) + px(y0, x1) * tx;
                double bot = px(y1, x0) * (1 - tx) + px(y1, x1) * tx;
                out[((size_t)y * w + x) * cn + k] = (float)(top * (1 - ty) + bot * ty);
            }
        }
    }
    return out;
}

} // namespace

TEST(MatPixel, every_conversion_pair)
{
    reseed(1);
    for (int from : kFormats)
    {
        for (int to : kFormats)
        {
            const int w = 7, h = 5;
            const int cin = channels_of(from), cout = channels_of(to);
            std::vector<unsigned char> px = random_pixels((size_t)w * h * cin);
            Mat m = Mat::from_pixels(px.data(), make_type(from, to), w, h);
            ASSERT_FALSE(m.empty()) << format_name(from) << "->" << format_name(to);
            EXPECT_EQ(m.dims, 3);
            EXPECT_EQ(m.w, w);
            EXPECT_EQ(m.h, h);
            EXPECT_EQ(m.c, cout);
            EXPECT_EQ(m.elemsize, 4u);
            EXPECT_EQ(m.elempack, 1);
            int bad = 0;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                {
                    std::vector<int> want = expected_pixel(&px[((size_t)y * w + x) * cin], from, to);
                    for (int k = 0; k < cout; k++)
                        if (at(m, k, y, x) != (float)want[k] && bad++ < 3)
                            ADD_FAILURE() << format_name(from) << "->" << format_name(to) << " at " << x << "," << y << " ch " << k
                                          << ": " << at(m, k, y, x) << " want " << want[k];
                }
        }
    }
}

TEST(MatPixel, gray_weights_close_to_float)
{
    // the fixed-point gray stays within one level of the float formula
    for (int r = 0; r < 256; r += 15)
        for (int g = 0; g < 256; g += 15)
            for (int b = 0; b < 256; b += 15)
            {
                unsigned char p[3] = {(unsigned char)r, (unsigned char)g, (unsigned char)b};
                Mat m = Mat::from_pixels(p, Mat::PIXEL_RGB2GRAY, 1, 1);
                ASSERT_FALSE(m.empty());
                float f = 0.299f * r + 0.587f * g + 0.114f * b;
                ASSERT_LE(std::fabs(m[0] - f), 1.5f) << r << "," << g << "," << b;
            }
}

TEST(MatPixel, from_pixels_stride)
{
    reseed(2);
    for (int from : kFormats)
    {
        const int w = 9, h = 4, cin = channels_of(from);
        const int stride = w * cin + 5;
        std::vector<unsigned char> padded((size_t)stride * h, 0xAB);
        std::vector<unsigned char> packed((size_t)w * h * cin);
        for (int y = 0; y < h; y++)
            for (int i = 0; i < w * cin; i++)
                padded[(size_t)y * stride + i] = packed[(size_t)y * w * cin + i] = (unsigned char)rand_int(0, 255);
        for (int to : kFormats)
        {
            Mat a = Mat::from_pixels(padded.data(), make_type(from, to), w, h, stride);
            Mat b = Mat::from_pixels(packed.data(), make_type(from, to), w, h);
            ASSERT_FALSE(a.empty());
            EXPECT_EQ(compare_mat(a, b, 0.f), "") << format_name(from) << "->" << format_name(to);
        }
    }
}

TEST(MatPixel, to_pixels_every_pair_and_stride)
{
    reseed(3);
    for (int from : kFormats)
    {
        for (int to : kFormats)
        {
            const int w = 6, h = 3, cin = channels_of(from), cout = channels_of(to);
            // Mat with integer values in 0..255, planar, in `from` order
            Mat m(w, h, cin);
            std::vector<unsigned char> px((size_t)w * h * cin);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int k = 0; k < cin; k++)
                    {
                        unsigned char v = (unsigned char)rand_int(0, 255);
                        px[((size_t)y * w + x) * cin + k] = v;
                        ((float*)m.channel(k).data)[y * w + x] = v;
                    }
            const int stride = w * cout + 3;
            std::vector<unsigned char> out((size_t)stride * h, 0x5A);
            m.to_pixels(out.data(), make_type(from, to), stride);
            for (int y = 0; y < h; y++)
            {
                for (int x = 0; x < w; x++)
                {
                    std::vector<int> want = expected_pixel(&px[((size_t)y * w + x) * cin], from, to);
                    for (int k = 0; k < cout; k++)
                        ASSERT_EQ(out[(size_t)y * stride + x * cout + k], want[k])
                            << format_name(from) << "->" << format_name(to) << " at " << x << "," << y << " ch " << k;
                }
                for (int i = w * cout; i < stride; i++)
                    ASSERT_EQ(out[(size_t)y * stride + i], 0x5A) << "stride padding overwritten";
            }
        }
    }
}

TEST(MatPixel, round_trip)
{
    reseed(4);
    for (int f : kFormats)
    {
        // the large size runs the threaded path
        for (int size : {0, 1})
        {
            const int w = size ? 131 : 11, h = size ? 70 : 7, cn = channels_of(f);
            std::vector<unsigned char> px = random_pixels((size_t)w * h * cn);
            Mat m = Mat::from_pixels(px.data(), f, w, h);
            std::vector<unsigned char> back(px.size(), 0);
            m.to_pixels(back.data(), f);
            EXPECT_EQ(px, back) << format_name(f) << " " << w << "x" << h;
        }
    }
}

TEST(MatPixel, to_pixels_rounds_and_clamps)
{
    const float vals[] = {-3.7f, -0.4f, 0.f, 0.4f, 0.6f, 1.49f, 1.51f, 127.3f, 127.7f, 254.6f, 255.f, 255.4f, 300.f, 1e9f, -1e9f, NAN, INFINITY, -INFINITY};
    const int want[] = {0, 0, 0, 0, 1, 1, 2, 127, 128, 255, 255, 255, 255, 255, 0, 0, 255, 0};
    const int n = sizeof(vals) / sizeof(vals[0]);
    Mat m(n, 1, 1);
    for (int i = 0; i < n; i++)
        m[i] = vals[i];
    std::vector<unsigned char> out(n);
    m.to_pixels(out.data(), Mat::PIXEL_GRAY);
    for (int i = 0; i < n; i++)
    {
        if (std::isnan(vals[i]))
            continue; // any value is acceptable for NaN, as long as nothing crashes
        EXPECT_EQ(out[i], want[i]) << "value " << vals[i];
    }
    // exact halves round to one of the two neighbours
    Mat h(3, 1, 1);
    h[0] = 0.5f, h[1] = 2.5f, h[2] = 100.5f;
    unsigned char o[3];
    h.to_pixels(o, Mat::PIXEL_GRAY);
    EXPECT_TRUE(o[0] == 0 || o[0] == 1);
    EXPECT_TRUE(o[1] == 2 || o[1] == 3);
    EXPECT_TRUE(o[2] == 100 || o[2] == 101);
}

TEST(MatPixel, to_pixels_from_packed_mat)
{
    // a pack4 Mat is unpacked before writing pixels
    reseed(5);
    const int w = 5, h = 3;
    Mat m(w, h, 4);
    for (int q = 0; q < 4; q++)
        for (int i = 0; i < w * h; i++)
            ((float*)m.channel(q).data)[i] = (float)rand_int(0, 255);
    Mat p;
    convert_packing(m, p, 4);
    ASSERT_EQ(p.elempack, 4);
    std::vector<unsigned char> a((size_t)w * h * 4), b((size_t)w * h * 4);
    m.to_pixels(a.data(), Mat::PIXEL_RGBA);
    p.to_pixels(b.data(), Mat::PIXEL_RGBA);
    EXPECT_EQ(a, b);
}

TEST(MatPixel, resize_against_float_bilinear)
{
    reseed(6);
    struct Case
    {
        int w, h, tw, th;
    };
    const Case cases[] = {{4, 4, 8, 8}, {8, 8, 4, 4}, {7, 5, 13, 9}, {13, 9, 7, 5}, {3, 2, 10, 1}, {1, 5, 4, 3},
                          {5, 1, 3, 4}, {16, 12, 5, 17}, {2, 2, 2, 7}, {33, 21, 64, 48}, {100, 80, 37, 29}, {90, 70, 151, 123}};
    for (int f : {(int)Mat::PIXEL_GRAY, (int)Mat::PIXEL_RGB, (int)Mat::PIXEL_RGBA})
    {
        const int cn = channels_of(f);
        for (const Case& c : cases)
        {
            const int stride = c.w * cn + (c.w % 3); // some cases padded
            std::vector<unsigned char> px = random_pixels((size_t)stride * c.h);
            Mat m = Mat::from_pixels_resize(px.data(), f, c.w, c.h, stride, c.tw, c.th);
            ASSERT_FALSE(m.empty());
            ASSERT_EQ(m.w, c.tw);
            ASSERT_EQ(m.h, c.th);
            ASSERT_EQ(m.c, cn);
            std::vector<float> ref = reference_resize(px.data(), c.w, c.h, stride, cn, c.tw, c.th);
            float maxdiff = 0;
            for (int y = 0; y < c.th; y++)
                for (int x = 0; x < c.tw; x++)
                    for (int k = 0; k < cn; k++)
                        maxdiff = std::max(maxdiff, std::fabs(at(m, k, y, x) - ref[((size_t)y * c.tw + x) * cn + k]));
            // fixed-point arithmetic: within one level of the exact value
            EXPECT_LE(maxdiff, 1.0f) << format_name(f) << " " << c.w << "x" << c.h << " -> " << c.tw << "x" << c.th;
        }
    }
}

TEST(MatPixel, resize_exact_cases)
{
    // constant images stay constant, same-size resize is the identity,
    // and upscaling 2x puts 3/4 : 1/4 blends between neighbours
    for (int v : {0, 1, 77, 254, 255})
    {
        std::vector<unsigned char> px(6 * 4 * 3, (unsigned char)v);
        Mat m = Mat::from_pixels_resize(px.data(), Mat::PIXEL_RGB, 6, 4, 11, 9);
        for (int q = 0; q < 3; q++)
            for (int i = 0; i < 11 * 9; i++)
                ASSERT_EQ(((float*)m.channel(q).data)[i], (float)v);
    }
    reseed(7);
    std::vector<unsigned char> px = random_pixels(5 * 4);
    Mat a = Mat::from_pixels_resize(px.data(), Mat::PIXEL_GRAY, 5, 4, 5, 4);
    Mat b = Mat::from_pixels(px.data(), Mat::PIXEL_GRAY, 5, 4);
    EXPECT_EQ(compare_mat(a, b, 0.f), "");

    const unsigned char two[2] = {0, 200};
    Mat up = Mat::from_pixels_resize(two, Mat::PIXEL_GRAY, 2, 1, 4, 1);
    ASSERT_FALSE(up.empty());
    EXPECT_EQ(up[0], 0.f);
    EXPECT_NEAR(up[1], 50.f, 1.f);
    EXPECT_NEAR(up[2], 150.f, 1.f);
    EXPECT_EQ(up[3], 200.f);
}

TEST(MatPixel, resize_then_convert)
{
    // from_pixels_resize with a conversion resizes in the source format, then converts
    reseed(8);
    const int w = 9, h = 7, tw = 5, th = 12;
    std::vector<unsigned char> rgb = random_pixels((size_t)w * h * 3);
    Mat plain = Mat::from_pixels_resize(rgb.data(), Mat::PIXEL_RGB, w, h, tw, th);
    Mat bgr = Mat::from_pixels_resize(rgb.data(), Mat::PIXEL_RGB2BGR, w, h, tw, th);
    Mat gray = Mat::from_pixels_resize(rgb.data(), Mat::PIXEL_RGB2GRAY, w, h, tw, th);
    Mat rgba = Mat::from_pixels_resize(rgb.data(), Mat::PIXEL_RGB2RGBA, w, h, tw, th);
    ASSERT_EQ(bgr.c, 3);
    ASSERT_EQ(gray.c, 1);
    ASSERT_EQ(rgba.c, 4);
    for (int y = 0; y < th; y++)
        for (int x = 0; x < tw; x++)
        {
            Rgba v = {(int)at(plain, 0, y, x), (int)at(plain, 1, y, x), (int)at(plain, 2, y, x), 255};
            ASSERT_EQ(at(bgr, 0, y, x), v.b);
            ASSERT_EQ(at(bgr, 2, y, x), v.r);
            ASSERT_EQ(at(gray, 0, y, x), gray_of(v));
            ASSERT_EQ(at(rgba, 3, y, x), 255.f);
            ASSERT_EQ(at(rgba, 1, y, x), v.g);
        }
}

TEST(MatPixel, to_pixels_resize)
{
    reseed(9);
    const int w = 8, h = 6, tw = 13, th = 4;
    Mat m(w, h, 3);
    for (int q = 0; q < 3; q++)
        for (int i = 0; i < w * h; i++)
            ((float*)m.channel(q).data)[i] = (float)rand_int(0, 255);
    std::vector<unsigned char> full((size_t)w * h * 3);
    m.to_pixels(full.data(), Mat::PIXEL_RGB2BGR);
    std::vector<float> ref = reference_resize(full.data(), w, h, w * 3, 3, tw, th);

    const int stride = tw * 3 + 4;
    std::vector<unsigned char> out((size_t)stride * th, 0x33);
    m.to_pixels_resize(out.data(), Mat::PIXEL_RGB2BGR, tw, th, stride);
    for (int y = 0; y < th; y++)
    {
        for (int i = 0; i < tw * 3; i++)
            ASSERT_LE(std::fabs(out[(size_t)y * stride + i] - ref[(size_t)y * tw * 3 + i]), 1.f) << y << " " << i;
        for (int i = tw * 3; i < stride; i++)
            ASSERT_EQ(out[(size_t)y * stride + i], 0x33);
    }
    // same size: plain to_pixels
    std::vector<unsigned char> same((size_t)w * h * 3);
    m.to_pixels_resize(same.data(), Mat::PIXEL_RGB2BGR, w, h);
    EXPECT_EQ(same, full);
}

TEST(MatPixel, substract_mean_normalize)
{
    reseed(10);
    const float mean[4] = {10.f, -3.f, 0.5f, 100.f};
    const float norm[4] = {0.5f, 2.f, -1.f, 1.f / 255};
    for (int mode = 0; mode < 4; mode++)
    {
        const float* mp = (mode & 1) ? mean : nullptr;
        const float* np = (mode & 2) ? norm : nullptr;
        for (int pack : {1, 4})
        {
            Mat src = RandomMat(5, 3, 4, 0.f, 255.f);
            Mat m;
            convert_packing(src.clone(), m, pack);
            ASSERT_EQ(m.elempack, pack);
            m.substract_mean_normalize(mp, np);
            Mat out;
            convert_packing(m, out, 1);
            for (int q = 0; q < 4; q++)
                for (int i = 0; i < 15; i++)
                {
                    float v = ((const float*)src.channel(q).data)[i];
                    float want = (v - (mp ? mp[q] : 0.f)) * (np ? np[q] : 1.f);
                    ASSERT_FLOAT_EQ(((const float*)out.channel(q).data)[i], want) << "mode " << mode << " pack " << pack;
                }
        }
    }
}

TEST(MatPixel, bad_arguments)
{
    std::vector<unsigned char> px(64 * 3, 1);
    EXPECT_TRUE(Mat::from_pixels(px.data(), 99, 4, 4).empty());
    EXPECT_TRUE(Mat::from_pixels(px.data(), Mat::PIXEL_RGB | (77 << Mat::PIXEL_CONVERT_SHIFT), 4, 4).empty());
    EXPECT_TRUE(Mat::from_pixels(nullptr, Mat::PIXEL_RGB, 4, 4).empty());
    EXPECT_TRUE(Mat::from_pixels(px.data(), Mat::PIXEL_RGB, 0, 4).empty());
    EXPECT_TRUE(Mat::from_pixels(px.data(), Mat::PIXEL_RGB, 4, 4, 11).empty()); // stride < 4 * 3
    EXPECT_TRUE(Mat::from_pixels_resize(px.data(), Mat::PIXEL_RGB, 4, 4, 0, 3).empty());
    // to_pixels on a Mat with too few channels leaves the buffer alone
    Mat one(4, 4, 1);
    one.fill(7.f);
    std::vector<unsigned char> out(64, 0xEE);
    one.to_pixels(out.data(), Mat::PIXEL_RGB);
    for (unsigned char v : out)
        ASSERT_EQ(v, 0xEE);
    Mat empty;
    empty.to_pixels(out.data(), Mat::PIXEL_GRAY);
    empty.substract_mean_normalize(nullptr, nullptr);
}
