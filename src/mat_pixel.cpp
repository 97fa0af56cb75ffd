// Pixel conversion: interleaved 8-bit images <-> planar fp32 Mats, colour
// conversion between RGB/BGR/GRAY/RGBA/BGRA, and bilinear resizing of 8-bit
// images (fixed-point, the same arithmetic as ncnn's resize_bilinear_c1/c3/c4:
// half-pixel centres, 11-bit coefficients).
#include "mat.h"

#include "log.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

namespace kite {

namespace {

// ---------------------------------------------------------------------------
// pixel formats

int format_channels(int format)
{
    switch (format)
    {
    case Mat::PIXEL_RGB:
    case Mat::PIXEL_BGR: return 3;
    case Mat::PIXEL_GRAY: return 1;
    case Mat::PIXEL_RGBA:
    case Mat::PIXEL_BGRA: return 4;
    }
    return 0;
}

// Split a pixel type into its source and destination formats; plain
// PIXEL_RGB etc. means no conversion. Returns false for unknown types.
bool split_type(int type, int& from, int& to)
{
    from = type & Mat::PIXEL_FORMAT_MASK;
    to = (type & Mat::PIXEL_CONVERT_MASK) ? (int)(((unsigned int)type & Mat::PIXEL_CONVERT_MASK) >> Mat::PIXEL_CONVERT_SHIFT) : from;
    return format_channels(from) > 0 && format_channels(to) > 0;
}

// Gray from RGB with ncnn's fixed-point weights: 0.299, 0.587, 0.114 as
// 77/256, 150/256, 29/256, truncated.
inline unsigned char rgb_to_gray(unsigned char r, unsigned char g, unsigned char b)
{
    return (unsigned char)((r * 77 + g * 150 + b * 29) >> 8);
}

// One pixel from format From (at src) to format To (at dst). Missing alpha is
// 255; gray expands to r = g = b.
template<int From, int To>
inline void convert_pixel(const unsigned char* src, unsigned char* dst)
{
    unsigned char r, g, b, a = 255;
    switch (From)
    {
    case Mat::PIXEL_RGB: r = src[0], g = src[1], b = src[2]; break;
    case Mat::PIXEL_BGR: b = src[0], g = src[1], r = src[2]; break;
    case Mat::PIXEL_RGBA: r = src[0], g = src[1], b = src[2], a = src[3]; break;
    case Mat::PIXEL_BGRA: b = src[0], g = src[1], r = src[2], a = src[3]; break;
    default: r = g = b = src[0]; break; // GRAY
    }
    switch (To)
    {
    case Mat::PIXEL_RGB: dst[0] = r, dst[1] = g, dst[2] = b; break;
    case Mat::PIXEL_BGR: dst[0] = b, dst[1] = g, dst[2] = r; break;
    case Mat::PIXEL_RGBA: dst[0] = r, dst[1] = g, dst[2] = b, dst[3] = a; break;
    case Mat::PIXEL_BGRA: dst[0] = b, dst[1] = g, dst[2] = r, dst[3] = a; break;
    default: dst[0] = From == Mat::PIXEL_GRAY ? src[0] : rgb_to_gray(r, g, b); break; // GRAY
    }
}

// Convert one row of w pixels.
template<int From, int To>
void convert_row(const unsigned char* src, unsigned char* dst, int w)
{
    const int cin = From == Mat::PIXEL_GRAY ? 1 : (From == Mat::PIXEL_RGB || From == Mat::PIXEL_BGR) ? 3 : 4;
    const int cout = To == Mat::PIXEL_GRAY ? 1 : (To == Mat::PIXEL_RGB || To == Mat::PIXEL_BGR) ? 3 : 4;
    for (int x = 0; x < w; x++)
        convert_pixel<From, To>(src + x * cin, dst + x * cout);
}

typedef void (*row_converter)(const unsigned char*, unsigned char*, int);

template<int From>
row_converter pick_to(int to)
{
    switch (to)
    {
    case Mat::PIXEL_RGB: return convert_row<From, Mat::PIXEL_RGB>;
    case Mat::PIXEL_BGR: return convert_row<From, Mat::PIXEL_BGR>;
    case Mat::PIXEL_GRAY: return convert_row<From, Mat::PIXEL_GRAY>;
    case Mat::PIXEL_RGBA: return convert_row<From, Mat::PIXEL_RGBA>;
    case Mat::PIXEL_BGRA: return convert_row<From, Mat::PIXEL_BGRA>;
    }
    return nullptr;
}

row_converter pick_converter(int from, int to)
{
    switch (from)
    {
    case Mat::PIXEL_RGB: return pick_to<Mat::PIXEL_RGB>(to);
    case Mat::PIXEL_BGR: return pick_to<Mat::PIXEL_BGR>(to);
    case Mat::PIXEL_GRAY: return pick_to<Mat::PIXEL_GRAY>(to);
    case Mat::PIXEL_RGBA: return pick_to<Mat::PIXEL_RGBA>(to);
    case Mat::PIXEL_BGRA: return pick_to<Mat::PIXEL_BGRA>(to);
    }
    return nullptr;
}

// rows are processed in parallel only when the image is large enough to pay
// for the threads
inline bool worth_threads(int w, int h)
{
    return (long)w * h >= 64 * 64;
}

// float -> uint8, rounded to nearest (halves away from zero), clamped; NaN -> 0
inline unsigned char saturate_u8(float v)
{
    if (!(v > 0.f))
        return 0;
    if (v >= 255.f)
        return 255;
    return (unsigned char)(int)(v + 0.5f);
}

// ---------------------------------------------------------------------------
// bilinear resize of interleaved 8-bit pixels

const int kCoefBits = 11;
const int kCoefScale = 1 << kCoefBits;

inline short round_coef(float x)
{
    int v = (int)(x + (x >= 0.f ? 0.5f : -0.5f));
    return (short)std::min(std::max(v, (int)SHRT_MIN), (int)SHRT_MAX);
}

// For each destination index: the left source index and the two 11-bit
// weights. Pixel centres are at i + 0.5 in both images; positions before the
// first or after the last centre take the edge pixel.
void bilinear_taps(int srcn, int n, std::vector<int>& ofs, std::vector<short>& coef)
{
    const double scale = (double)srcn / n;
    ofs.resize(n);
    coef.resize(n * 2);
    for (int i = 0; i < n; i++)
    {
        float f = (float)((i + 0.5) * scale - 0.5);
        int s = (int)std::floor(f);
        f -= s;
        if (s < 0)
        {
            s = 0;
            f = 0.f;
        }
        if (s >= srcn - 1)
        {
            // the last pixel: weight 1 on it (as the right tap of the last pair)
            s = srcn >= 2 ? srcn - 2 : 0;
            f = srcn >= 2 ? 1.f : 0.f;
        }
        ofs[i] = s;
        coef[i * 2] = round_coef((1.f - f) * kCoefScale);
        coef[i * 2 + 1] = round_coef(f * kCoefScale);
    }
}

// Horizontal pass of one source row into 16-bit intermediates (value * 128).
void resize_row_h(const unsigned char* S, int srcw, int channels, const std::vector<int>& xofs, const std::vector<short>& alpha, short* row, int w)
{
    for (int dx = 0; dx < w; dx++)
    {
        const int sx0 = xofs[dx];
        const int sx1 = std::min(sx0 + 1, srcw - 1);
        const int a0 = alpha[dx * 2];
        const int a1 = alpha[dx * 2 + 1];
        const unsigned char* p0 = S + sx0 * channels;
        const unsigned char* p1 = S + sx1 * channels;
        for (int k = 0; k < channels; k++)
            row[dx * channels + k] = (short)((p0[k] * a0 + p1[k] * a1) >> 4);
    }
}

void resize_bilinear(const unsigned char* src, int srcw, int srch, int srcstride, int channels,
                     unsigned char* dst, int w, int h, int stride)
{
    std::vector<int> xofs, yofs;
    std::vector<short> alpha, beta;
    bilinear_taps(srcw, w, xofs, alpha);
    bilinear_taps(srch, h, yofs, beta);
    const int rowlen = w * channels;

    #pragma omp parallel if (worth_threads(w, h))
    {
        std::vector<short> rows0(rowlen), rows1(rowlen);
        int cached_sy = -2; // source row held in rows0 (rows1 holds cached_sy + 1)

        #pragma omp for schedule(static)
        for (int dy = 0; dy < h; dy++)
        {
            const int sy0 = yofs[dy];
            const int sy1 = std::min(sy0 + 1, srch - 1);
            if (sy0 != cached_sy)
            {
                if (sy0 == cached_sy + 1)
                {
                    rows0.swap(rows1);
                }
                else
                {
                    resize_row_h(src + (size_t)srcstride * sy0, srcw, channels, xofs, alpha, rows0.data(), w);
                }
                resize_row_h(src + (size_t)srcstride * sy1, srcw, channels, xofs, alpha, rows1.data(), w);
                cached_sy = sy0;
            }
            const int b0 = beta[dy * 2];
            const int b1 = beta[dy * 2 + 1];
            unsigned char* D = dst + (size_t)stride * dy;
            for (int i = 0; i < rowlen; i++)
            {
                // the same rounding steps as ncnn: two 16-bit products >> 16, then (+2) >> 2
                int v = (((short)((b0 * rows0[i]) >> 16)) + ((short)((b1 * rows1[i]) >> 16)) + 2) >> 2;
                D[i] = (unsigned char)std::min(std::max(v, 0), 255);
            }
        }
    }
}

bool check_size(const char* what, const void* pixels, int w, int h, int stride, int channels)
{
    if (!pixels)
    {
        KITE_LOGE("%s: null pixel pointer", what);
        return false;
    }
    if (w <= 0 || h <= 0)
    {
        KITE_LOGE("%s: bad image size %d x %d", what, w, h);
        return false;
    }
    if (stride < w * channels)
    {
        KITE_LOGE("%s: stride %d is less than width %d x %d channels", what, stride, w, channels);
        return false;
    }
    return true;
}

} // namespace

// ---------------------------------------------------------------------------
// from_pixels

Mat Mat::from_pixels(const unsigned char* pixels, int type, int w, int h, Allocator* allocator)
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("from_pixels: unknown pixel type 0x%x", type);
        return Mat();
    }
    return from_pixels(pixels, type, w, h, w * format_channels(from), allocator);
}

Mat Mat::from_pixels(const unsigned char* pixels, int type, int w, int h, int stride, Allocator* allocator)
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("from_pixels: unknown pixel type 0x%x", type);
        return Mat();
    }
    if (!check_size("from_pixels", pixels, w, h, stride, format_channels(from)))
        return Mat();
    const int cout = format_channels(to);
    Mat m(w, h, cout, (size_t)4u, allocator);
    if (m.empty())
        return m;

    row_converter convert = pick_converter(from, to);
    #pragma omp parallel if (worth_threads(w, h))
    {
        std::vector<unsigned char> row((size_t)w * cout);
        #pragma omp for schedule(static)
        for (int y = 0; y < h; y++)
        {
            convert(pixels + (size_t)stride * y, row.data(), w);
            for (int k = 0; k < cout; k++)
            {
                float* out = (float*)m.channel(k).data + (size_t)w * y;
                for (int x = 0; x < w; x++)
                    out[x] = (float)row[(size_t)x * cout + k];
            }
        }
    }
    return m;
}

Mat Mat::from_pixels_resize(const unsigned char* pixels, int type, int w, int h, int target_width, int target_height, Allocator* allocator)
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("from_pixels_resize: unknown pixel type 0x%x", type);
        return Mat();
    }
    return from_pixels_resize(pixels, type, w, h, w * format_channels(from), target_width, target_height, allocator);
}

Mat Mat::from_pixels_resize(const unsigned char* pixels, int type, int w, int h, int stride, int target_width, int target_height, Allocator* allocator)
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("from_pixels_resize: unknown pixel type 0x%x", type);
        return Mat();
    }
    const int cin = format_channels(from);
    if (!check_size("from_pixels_resize", pixels, w, h, stride, cin))
        return Mat();
    if (target_width <= 0 || target_height <= 0)
    {
        KITE_LOGE("from_pixels_resize: bad target size %d x %d", target_width, target_height);
        return Mat();
    }
    if (w == target_width && h == target_height)
        return from_pixels(pixels, type, w, h, stride, allocator);

    // resize in the source format, then convert
    Mat resized(target_width * cin, target_height, (size_t)1u);
    if (resized.empty())
        return Mat();
    resize_bilinear(pixels, w, h, stride, cin, (unsigned char*)resized.data, target_width, target_height, target_width * cin);
    return from_pixels((const unsigned char*)resized.data, type, target_width, target_height, target_width * cin, allocator);
}

// ---------------------------------------------------------------------------
// to_pixels

void Mat::to_pixels(unsigned char* pixels, int type) const
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("to_pixels: unknown pixel type 0x%x", type);
        return;
    }
    to_pixels(pixels, type, w * format_channels(to));
}

void Mat::to_pixels(unsigned char* pixels, int type, int stride) const
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("to_pixels: unknown pixel type 0x%x", type);
        return;
    }
    const int cin = format_channels(from);
    const int cout = format_channels(to);
    if (empty() || elembits() != 32)
    {
        KITE_LOGE("to_pixels: needs a non-empty fp32 Mat");
        return;
    }
    if (!check_size("to_pixels", pixels, w, h, stride, cout))
        return;
    // planar fp32 with elempack 1
    Mat src = *this;
    if (src.elempack != 1)
    {
        convert_packing(*this, src, 1);
        if (src.empty())
            return;
    }
    const int channels = src.dims >= 3 ? src.c : 1;
    if (channels < cin || src.d != 1)
    {
        KITE_LOGE("to_pixels: pixel type 0x%x needs %d channels of w x h, the Mat has %d (dims %d)", type, cin, channels, src.dims);
        return;
    }

    row_converter convert = pick_converter(from, to);
    const int ww = w, hh = h;
    #pragma omp parallel if (worth_threads(ww, hh))
    {
        std::vector<unsigned char> row((size_t)ww * cin);
        #pragma omp for schedule(static)
        for (int y = 0; y < hh; y++)
        {
            for (int k = 0; k < cin; k++)
            {
                const float* in = (const float*)((const unsigned char*)src.data + src.cstep * k * src.elemsize) + (size_t)ww * y;
                for (int x = 0; x < ww; x++)
                    row[(size_t)x * cin + k] = saturate_u8(in[x]);
            }
            convert(row.data(), pixels + (size_t)stride * y, ww);
        }
    }
}

void Mat::to_pixels_resize(unsigned char* pixels, int type, int target_width, int target_height) const
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("to_pixels_resize: unknown pixel type 0x%x", type);
        return;
    }
    to_pixels_resize(pixels, type, target_width, target_height, target_width * format_channels(to));
}

void Mat::to_pixels_resize(unsigned char* pixels, int type, int target_width, int target_height, int target_stride) const
{
    int from, to;
    if (!split_type(type, from, to))
    {
        KITE_LOGE("to_pixels_resize: unknown pixel type 0x%x", type);
        return;
    }
    const int cout = format_channels(to);
    if (!check_size("to_pixels_resize", pixels, target_width, target_height, target_stride, cout))
        return;
    if (empty() || w <= 0 || h <= 0)
    {
        KITE_LOGE("to_pixels_resize: empty Mat");
        return;
    }
    if (w == target_width && h == target_height)
    {
        to_pixels(pixels, type, target_stride);
        return;
    }
    // convert at the Mat's size, then resize in the destination format
    Mat tmp(w * cout, h, (size_t)1u);
    if (tmp.empty())
        return;
    unsigned char* buf = (unsigned char*)tmp.data;
    to_pixels(buf, type, w * cout);
    resize_bilinear(buf, w, h, w * cout, cout, pixels, target_width, target_height, target_stride);
}

// ---------------------------------------------------------------------------
// normalisation

void Mat::substract_mean_normalize(const float* mean_vals, const float* norm_vals)
{
    if (empty())
        return;
    if (elembits() != 32)
    {
        KITE_LOGE("substract_mean_normalize: needs an fp32 Mat, got %d-bit elements", elembits());
        return;
    }
    if (!mean_vals && !norm_vals)
        return;
    // a packed channel q holds the scalars of channels q*elempack .. q*elempack+elempack-1, interleaved
    const int channels = dims >= 3 ? c : 1;
    const size_t size = (size_t)w * h * d;
    const int pack = elempack;
    #pragma omp parallel for if (size * channels >= 4096)
    for (int q = 0; q < channels; q++)
    {
        float* ptr = (float*)((unsigned char*)data + cstep * q * elemsize);
        for (int k = 0; k < pack; k++)
        {
            const int ch = dims >= 3 ? q * pack + k : 0;
            const float mean = mean_vals ? mean_vals[ch] : 0.f;
            const float norm = norm_vals ? norm_vals[ch] : 1.f;
            float* p = ptr + k;
            if (mean_vals && norm_vals)
            {
                for (size_t i = 0; i < size; i++)
                    p[i * pack] = (p[i * pack] - mean) * norm;
            }
            else if (mean_vals)
            {
                for (size_t i = 0; i < size; i++)
                    p[i * pack] = p[i * pack] - mean;
            }
            else
            {
                for (size_t i = 0; i < size; i++)
                    p[i * pack] = p[i * pack] * norm;
            }
        }
    }
}

} // namespace kite
