#ifndef KITE_MAT_H
#define KITE_MAT_H

#include "allocator.h"
#include "option.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kite {

// A blob of 1..4 dimensions (w, h, d, c) with element packing.
//
// elemsize is the byte size of one packed element and elempack how many
// scalars it holds (fp32 pack4: elemsize 16, elempack 4). The packing axis is
// w for dims 1, h for dims 2, c for dims 3 and 4. Channels start on 16-byte
// boundaries: cstep (in elements) is w*h*d rounded up so that cstep*elemsize
// is a multiple of 16; for dims 1 and 2, cstep = w*h.
//
// The data is reference counted; the count lives at the end of the
// allocation. A Mat made from external data has no refcount and never frees.
class Mat
{
public:
    Mat();
    Mat(int w, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, int h, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, int h, int c, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, int h, int d, int c, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, size_t elemsize, int elempack, Allocator* allocator);
    Mat(int w, int h, size_t elemsize, int elempack, Allocator* allocator);
    Mat(int w, int h, int c, size_t elemsize, int elempack, Allocator* allocator);
    Mat(int w, int h, int d, int c, size_t elemsize, int elempack, Allocator* allocator);
    // external data, not owned
    Mat(int w, void* data, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, int h, void* data, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, int h, int c, void* data, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, int h, int d, int c, void* data, size_t elemsize = 4u, Allocator* allocator = nullptr);
    Mat(int w, void* data, size_t elemsize, int elempack, Allocator* allocator);
    Mat(int w, int h, void* data, size_t elemsize, int elempack, Allocator* allocator);
    Mat(int w, int h, int c, void* data, size_t elemsize, int elempack, Allocator* allocator);
    Mat(int w, int h, int d, int c, void* data, size_t elemsize, int elempack, Allocator* allocator);
    Mat(const Mat& m);
    ~Mat();
    Mat& operator=(const Mat& m);

    void fill(float v);
    void fill(int v);
    template<typename T>
    void fill(T v);

    // deep copy
    Mat clone(Allocator* allocator = nullptr) const;
    void clone_from(const Mat& m, Allocator* allocator = nullptr);

    // same data, new shape (copies when channel padding must be added or removed)
    Mat reshape(int w, Allocator* allocator = nullptr) const;
    Mat reshape(int w, int h, Allocator* allocator = nullptr) const;
    Mat reshape(int w, int h, int c, Allocator* allocator = nullptr) const;
    Mat reshape(int w, int h, int d, int c, Allocator* allocator = nullptr) const;

    // (re)allocate; keeps the data when the shape is unchanged. On failure the
    // Mat is left empty.
    void create(int w, size_t elemsize = 4u, Allocator* allocator = nullptr);
    void create(int w, int h, size_t elemsize = 4u, Allocator* allocator = nullptr);
    void create(int w, int h, int c, size_t elemsize = 4u, Allocator* allocator = nullptr);
    void create(int w, int h, int d, int c, size_t elemsize = 4u, Allocator* allocator = nullptr);
    void create(int w, size_t elemsize, int elempack, Allocator* allocator);
    void create(int w, int h, size_t elemsize, int elempack, Allocator* allocator);
    void create(int w, int h, int c, size_t elemsize, int elempack, Allocator* allocator);
    void create(int w, int h, int d, int c, size_t elemsize, int elempack, Allocator* allocator);
    void create_like(const Mat& m, Allocator* allocator = nullptr);

    void addref();
    void release();

    bool empty() const;
    size_t total() const;    // cstep * c, in packed elements
    int elembits() const;    // bits of one scalar
    Mat shape() const;       // a data-less Mat with the same dims, for shape hints

    // views, no copy
    Mat channel(int c);
    const Mat channel(int c) const;
    Mat depth(int z);
    const Mat depth(int z) const;
    float* row(int y);
    const float* row(int y) const;
    template<typename T>
    T* row(int y);
    template<typename T>
    const T* row(int y) const;
    Mat channel_range(int c, int channels);
    const Mat channel_range(int c, int channels) const;
    Mat depth_range(int z, int depths);
    const Mat depth_range(int z, int depths) const;
    Mat row_range(int y, int rows);
    const Mat row_range(int y, int rows) const;
    Mat range(int x, int n);
    const Mat range(int x, int n) const;

    template<typename T>
    operator T*();
    template<typename T>
    operator const T*() const;
    float& operator[](size_t i);
    const float& operator[](size_t i) const;

    // pixel formats for from_pixels / to_pixels. A conversion is
    // SRC | (DST << PIXEL_CONVERT_SHIFT), e.g. PIXEL_BGR2RGB.
    enum PixelType
    {
        PIXEL_CONVERT_SHIFT = 16,
        PIXEL_FORMAT_MASK = 0x0000ffff,
        PIXEL_CONVERT_MASK = 0xffff0000,

        PIXEL_RGB = 1,
        PIXEL_BGR = 2,
        PIXEL_GRAY = 3,
        PIXEL_RGBA = 4,
        PIXEL_BGRA = 5,

        PIXEL_RGB2BGR = PIXEL_RGB | (PIXEL_BGR << PIXEL_CONVERT_SHIFT),
        PIXEL_RGB2GRAY = PIXEL_RGB | (PIXEL_GRAY << PIXEL_CONVERT_SHIFT),
        PIXEL_RGB2RGBA = PIXEL_RGB | (PIXEL_RGBA << PIXEL_CONVERT_SHIFT),
        PIXEL_RGB2BGRA = PIXEL_RGB | (PIXEL_BGRA << PIXEL_CONVERT_SHIFT),
        PIXEL_BGR2RGB = PIXEL_BGR | (PIXEL_RGB << PIXEL_CONVERT_SHIFT),
        PIXEL_BGR2GRAY = PIXEL_BGR | (PIXEL_GRAY << PIXEL_CONVERT_SHIFT),
        PIXEL_BGR2RGBA = PIXEL_BGR | (PIXEL_RGBA << PIXEL_CONVERT_SHIFT),
        PIXEL_BGR2BGRA = PIXEL_BGR | (PIXEL_BGRA << PIXEL_CONVERT_SHIFT),
        PIXEL_GRAY2RGB = PIXEL_GRAY | (PIXEL_RGB << PIXEL_CONVERT_SHIFT),
        PIXEL_GRAY2BGR = PIXEL_GRAY | (PIXEL_BGR << PIXEL_CONVERT_SHIFT),
        PIXEL_GRAY2RGBA = PIXEL_GRAY | (PIXEL_RGBA << PIXEL_CONVERT_SHIFT),
        PIXEL_GRAY2BGRA = PIXEL_GRAY | (PIXEL_BGRA << PIXEL_CONVERT_SHIFT),
        PIXEL_RGBA2RGB = PIXEL_RGBA | (PIXEL_RGB << PIXEL_CONVERT_SHIFT),
        PIXEL_RGBA2BGR = PIXEL_RGBA | (PIXEL_BGR << PIXEL_CONVERT_SHIFT),
        PIXEL_RGBA2GRAY = PIXEL_RGBA | (PIXEL_GRAY << PIXEL_CONVERT_SHIFT),
        PIXEL_RGBA2BGRA = PIXEL_RGBA | (PIXEL_BGRA << PIXEL_CONVERT_SHIFT),
        PIXEL_BGRA2RGB = PIXEL_BGRA | (PIXEL_RGB << PIXEL_CONVERT_SHIFT),
        PIXEL_BGRA2BGR = PIXEL_BGRA | (PIXEL_BGR << PIXEL_CONVERT_SHIFT),
        PIXEL_BGRA2GRAY = PIXEL_BGRA | (PIXEL_GRAY << PIXEL_CONVERT_SHIFT),
        PIXEL_BGRA2RGBA = PIXEL_BGRA | (PIXEL_RGBA << PIXEL_CONVERT_SHIFT),
    };
    // interleaved 8-bit pixels -> planar fp32 Mat (w, h, channels of the destination format)
    static Mat from_pixels(const unsigned char* pixels, int type, int w, int h, Allocator* allocator = nullptr);
    static Mat from_pixels(const unsigned char* pixels, int type, int w, int h, int stride, Allocator* allocator = nullptr);
    static Mat from_pixels_resize(const unsigned char* pixels, int type, int w, int h, int target_width, int target_height, Allocator* allocator = nullptr);
    static Mat from_pixels_resize(const unsigned char* pixels, int type, int w, int h, int stride, int target_width, int target_height, Allocator* allocator = nullptr);
    // planar fp32 Mat -> interleaved 8-bit pixels (values rounded and clamped to 0..255)
    void to_pixels(unsigned char* pixels, int type) const;
    void to_pixels(unsigned char* pixels, int type, int stride) const;
    void to_pixels_resize(unsigned char* pixels, int type, int target_width, int target_height) const;
    void to_pixels_resize(unsigned char* pixels, int type, int target_width, int target_height, int target_stride) const;
    // per channel: (v - mean) * norm; either may be null
    void substract_mean_normalize(const float* mean_vals, const float* norm_vals);

    void* data;
    int* refcount;
    size_t elemsize;
    int elempack;
    Allocator* allocator;
    int dims;
    int w;
    int h;
    int d;
    int c;
    size_t cstep;
};

// Packing conversion along the packing axis. Converting to elempack > 1 when
// the axis is not divisible returns the source unchanged (check dst.elempack).
// Handles interleaved data too: a dims-3 Mat with c=1, elemsize=3, elempack=3
// (RGB pixels) converts to planar c=3 with elempack 1.
void convert_packing(const Mat& src, Mat& dst, int elempack, const Option& opt = Option());

// scalar conversions
unsigned short float32_to_float16(float value);
float float16_to_float32(unsigned short value);
static inline unsigned short float32_to_bfloat16(float value)
{
    unsigned int u;
    memcpy(&u, &value, 4);
    return (unsigned short)(u >> 16);
}
static inline float bfloat16_to_float32(unsigned short value)
{
    unsigned int u = (unsigned int)value << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
// whole-Mat conversions, keeping dims and elempack
void cast_float32_to_float16(const Mat& src, Mat& dst, const Option& opt = Option());
void cast_float16_to_float32(const Mat& src, Mat& dst, const Option& opt = Option());
void cast_float32_to_bfloat16(const Mat& src, Mat& dst, const Option& opt = Option());
void cast_bfloat16_to_float32(const Mat& src, Mat& dst, const Option& opt = Option());
void cast_int8_to_float32(const Mat& src, Mat& dst, const Option& opt = Option());
// to fp32 from whatever storage src has (fp32, fp16 or bf16 by elembits/flag)
void cast_to_float32(const Mat& src, Mat& dst, bool src_is_bf16, const Option& opt = Option());

// border types for copy_make_border
enum BorderType
{
    BORDER_CONSTANT = 0,
    BORDER_REPLICATE = 1,
    BORDER_REFLECT = 2,
};
// pad the w/h (and for dims 4 the d) plane of every channel; elempack 1 fp32 or any elemsize for constant 0
void copy_make_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, int type, float v, const Option& opt = Option());
void copy_make_border_3d(const Mat& src, Mat& dst, int top, int bottom, int left, int right, int front, int behind, int type, float v, const Option& opt = Option());
void copy_cut_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, const Option& opt = Option());

// ---- inline implementation ----

inline Mat::Mat()
    : data(nullptr), refcount(nullptr), elemsize(0), elempack(0), allocator(nullptr), dims(0), w(0), h(0), d(0), c(0), cstep(0)
{
}

inline Mat::Mat(const Mat& m)
    : data(m.data), refcount(m.refcount), elemsize(m.elemsize), elempack(m.elempack), allocator(m.allocator), dims(m.dims), w(m.w), h(m.h), d(m.d), c(m.c), cstep(m.cstep)
{
    addref();
}

inline Mat::~Mat()
{
    release();
}

inline Mat& Mat::operator=(const Mat& m)
{
    if (this == &m)
        return *this;
    if (m.refcount)
        xadd(m.refcount, 1);
    release();
    data = m.data;
    refcount = m.refcount;
    elemsize = m.elemsize;
    elempack = m.elempack;
    allocator = m.allocator;
    dims = m.dims;
    w = m.w;
    h = m.h;
    d = m.d;
    c = m.c;
    cstep = m.cstep;
    return *this;
}

inline void Mat::addref()
{
    if (refcount)
        xadd(refcount, 1);
}

inline bool Mat::empty() const
{
    return data == nullptr || total() == 0;
}

inline size_t Mat::total() const
{
    return cstep * c;
}

inline int Mat::elembits() const
{
    return elempack ? (int)(elemsize * 8 / elempack) : 0;
}

inline Mat Mat::shape() const
{
    Mat m;
    m.dims = dims;
    m.w = w;
    m.h = h;
    m.d = d;
    m.c = c;
    m.elemsize = elemsize;
    m.elempack = elempack;
    return m;
}

inline Mat Mat::channel(int _c)
{
    // a dims-4 Mat's channel is a dims-3 (w, h, d) Mat, otherwise a dims-2 plane
    Mat m;
    m.data = (unsigned char*)data + cstep * _c * elemsize;
    m.elemsize = elemsize;
    m.elempack = elempack;
    m.allocator = allocator;
    m.dims = dims == 4 ? 3 : 2;
    m.w = w;
    m.h = h;
    m.d = 1;
    m.c = dims == 4 ? d : 1;
    m.cstep = (size_t)w * h;
    return m;
}

inline const Mat Mat::channel(int _c) const
{
    return const_cast<Mat*>(this)->channel(_c);
}

inline Mat Mat::depth(int z)
{
    Mat m;
    m.data = (unsigned char*)data + (size_t)w * h * z * elemsize;
    m.elemsize = elemsize;
    m.elempack = elempack;
    m.allocator = allocator;
    m.dims = 2;
    m.w = w;
    m.h = h;
    m.d = 1;
    m.c = 1;
    m.cstep = (size_t)w * h;
    return m;
}

inline const Mat Mat::depth(int z) const
{
    return const_cast<Mat*>(this)->depth(z);
}

inline float* Mat::row(int y)
{
    return (float*)((unsigned char*)data + (size_t)w * y * elemsize);
}

inline const float* Mat::row(int y) const
{
    return (const float*)((unsigned char*)data + (size_t)w * y * elemsize);
}

template<typename T>
inline T* Mat::row(int y)
{
    return (T*)((unsigned char*)data + (size_t)w * y * elemsize);
}

template<typename T>
inline const T* Mat::row(int y) const
{
    return (const T*)((unsigned char*)data + (size_t)w * y * elemsize);
}

inline Mat Mat::channel_range(int _c, int channels)
{
    // a view: same shape per channel, no refcount
    Mat m = shape();
    m.data = (unsigned char*)data + cstep * _c * elemsize;
    m.allocator = allocator;
    m.c = channels;
    m.cstep = cstep;
    return m;
}

inline const Mat Mat::channel_range(int _c, int channels) const
{
    return const_cast<Mat*>(this)->channel_range(_c, channels);
}

inline Mat Mat::depth_range(int z, int depths)
{
    Mat m(w, h, depths, (unsigned char*)data + (size_t)w * h * z * elemsize, elemsize, elempack, allocator);
    return m;
}

inline const Mat Mat::depth_range(int z, int depths) const
{
    return const_cast<Mat*>(this)->depth_range(z, depths);
}

inline Mat Mat::row_range(int y, int rows)
{
    Mat m(w, rows, (unsigned char*)data + (size_t)w * y * elemsize, elemsize, elempack, allocator);
    return m;
}

inline const Mat Mat::row_range(int y, int rows) const
{
    return const_cast<Mat*>(this)->row_range(y, rows);
}

inline Mat Mat::range(int x, int n)
{
    Mat m(n, (unsigned char*)data + x * elemsize, elemsize, elempack, allocator);
    return m;
}

inline const Mat Mat::range(int x, int n) const
{
    return const_cast<Mat*>(this)->range(x, n);
}

template<typename T>
inline Mat::operator T*()
{
    return (T*)data;
}

template<typename T>
inline Mat::operator const T*() const
{
    return (const T*)data;
}

inline float& Mat::operator[](size_t i)
{
    return ((float*)data)[i];
}

inline const float& Mat::operator[](size_t i) const
{
    return ((const float*)data)[i];
}

template<typename T>
inline void Mat::fill(T v)
{
    size_t n = total() * elempack;
    T* p = (T*)data;
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

} // namespace kite

#endif // KITE_MAT_H
