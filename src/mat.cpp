#include "mat.h"

#include "log.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cmath>

#include "pack_transpose.h"

namespace kite {

namespace {
// bytes needed for count elements, or 0 on overflow / absurd size
size_t checked_bytes(size_t a, size_t b, size_t c2, size_t d2, size_t elemsize)
{
    const size_t limit = (size_t)(sizeof(size_t) >= 8 ? (1ull << 46) : (1ull << 30)); // 2^46 (64-bit), 2^30 (32-bit)
    size_t n = a;
    for (size_t f : {b, c2, d2, elemsize})
    {
        if (f != 0 && n > limit / f)
            return 0;
        n *= f;
    }
    return n;
}
} // namespace

Mat::Mat(int _w, size_t _elemsize, Allocator* _allocator) : Mat() { create(_w, _elemsize, _allocator); }
Mat::Mat(int _w, int _h, size_t _elemsize, Allocator* _allocator) : Mat() { create(_w, _h, _elemsize, _allocator); }
Mat::Mat(int _w, int _h, int _c, size_t _elemsize, Allocator* _allocator) : Mat() { create(_w, _h, _c, _elemsize, _allocator); }
Mat::Mat(int _w, int _h, int _d, int _c, size_t _elemsize, Allocator* _allocator) : Mat() { create(_w, _h, _d, _c, _elemsize, _allocator); }
Mat::Mat(int _w, size_t _elemsize, int _elempack, Allocator* _allocator) : Mat() { create(_w, _elemsize, _elempack, _allocator); }
Mat::Mat(int _w, int _h, size_t _elemsize, int _elempack, Allocator* _allocator) : Mat() { create(_w, _h, _elemsize, _elempack, _allocator); }
Mat::Mat(int _w, int _h, int _c, size_t _elemsize, int _elempack, Allocator* _allocator) : Mat() { create(_w, _h, _c, _elemsize, _elempack, _allocator); }
Mat::Mat(int _w, int _h, int _d, int _c, size_t _elemsize, int _elempack, Allocator* _allocator) : Mat() { create(_w, _h, _d, _c, _elemsize, _elempack, _allocator); }

Mat::Mat(int _w, void* _data, size_t _elemsize, Allocator* _allocator) : Mat(_w, _data, _elemsize, 1, _allocator) {}
Mat::Mat(int _w, int _h, void* _data, size_t _elemsize, Allocator* _allocator) : Mat(_w, _h, _data, _elemsize, 1, _allocator) {}
Mat::Mat(int _w, int _h, int _c, void* _data, size_t _elemsize, Allocator* _allocator) : Mat(_w, _h, _c, _data, _elemsize, 1, _allocator) {}
Mat::Mat(int _w, int _h, int _d, int _c, void* _data, size_t _elemsize, Allocator* _allocator) : Mat(_w, _h, _d, _c, _data, _elemsize, 1, _allocator) {}

Mat::Mat(int _w, void* _data, size_t _elemsize, int _elempack, Allocator* _allocator)
    : data(_data), refcount(nullptr), elemsize(_elemsize), elempack(_elempack), allocator(_allocator), dims(1), w(_w), h(1), d(1), c(1)
{
    cstep = w;
}

Mat::Mat(int _w, int _h, void* _data, size_t _elemsize, int _elempack, Allocator* _allocator)
    : data(_data), refcount(nullptr), elemsize(_elemsize), elempack(_elempack), allocator(_allocator), dims(2), w(_w), h(_h), d(1), c(1)
{
    cstep = (size_t)w * h;
}

Mat::Mat(int _w, int _h, int _c, void* _data, size_t _elemsize, int _elempack, Allocator* _allocator)
    : data(_data), refcount(nullptr), elemsize(_elemsize), elempack(_elempack), allocator(_allocator), dims(3), w(_w), h(_h), d(1), c(_c)
{
    cstep = align_size((size_t)w * h * elemsize, 16) / elemsize;
}

Mat::Mat(int _w, int _h, int _d, int _c, void* _data, size_t _elemsize, int _elempack, Allocator* _allocator)
    : data(_data), refcount(nullptr), elemsize(_elemsize), elempack(_elempack), allocator(_allocator), dims(4), w(_w), h(_h), d(_d), c(_c)
{
    cstep = align_size((size_t)w * h * d * elemsize, 16) / elemsize;
}

void Mat::release()
{
    if (refcount && xadd(refcount, -1) == 1)
    {
        if (allocator)
            allocator->fastFree(data);
        else
            fast_free(data);
    }
    data = nullptr;
    refcount = nullptr;
    elemsize = 0;
    elempack = 0;
    dims = 0;
    w = 0;
    h = 0;
    d = 0;
    c = 0;
    cstep = 0;
}

// the one place that allocates: shape fields are already set
static void mat_allocate(Mat& m, Allocator* _allocator)
{
    m.allocator = _allocator;
    size_t bytes = checked_bytes(m.cstep, (size_t)m.c, 1, 1, m.elemsize);
    if (bytes == 0)
    {
        if (m.cstep != 0 && m.c != 0 && m.elemsize != 0)
            KITE_LOGE("Mat: size %d x %d x %d x %d x %zu bytes is too large", m.w, m.h, m.d, m.c, m.elemsize);
        m.release();
        return;
    }
    size_t total_bytes = align_size(bytes, 4);
    void* p = _allocator ? _allocator->fastMalloc(total_bytes + sizeof(int)) : fast_malloc(total_bytes + sizeof(int));
    if (!p)
    {
        KITE_LOGE("Mat: out of memory allocating %zu bytes", total_bytes);
        m.release();
        return;
    }
    m.data = p;
    m.refcount = (int*)((unsigned char*)p + total_bytes);
    *m.refcount = 1;
}

static bool valid_dims(int a, int b, int c2, int d2)
{
    return a > 0 && b > 0 && c2 > 0 && d2 > 0;
}

void Mat::create(int _w, size_t _elemsize, Allocator* _allocator) { create(_w, _elemsize, 1, _allocator); }
void Mat::create(int _w, int _h, size_t _elemsize, Allocator* _allocator) { create(_w, _h, _elemsize, 1, _allocator); }
void Mat::create(int _w, int _h, int _c, size_t _elemsize, Allocator* _allocator) { create(_w, _h, _c, _elemsize, 1, _allocator); }
void Mat::create(int _w, int _h, int _d, int _c, size_t _elemsize, Allocator* _allocator) { create(_w, _h, _d, _c, _elemsize, 1, _allocator); }

void Mat::create(int _w, size_t _elemsize, int _elempack, Allocator* _allocator)
{
    if (dims == 1 && w == _w && elemsize == _elemsize && elempack == _elempack && allocator == _allocator && data)
        return;
    release();
    if (!valid_dims(_w, 1, 1, 1) || _elemsize == 0)
        return;
    elemsize = _elemsize;
    elempack = _elempack;
    dims = 1;
    w = _w;
    h = 1;
    d = 1;
    c = 1;
    cstep = w;
    mat_allocate(*this, _allocator);
}

void Mat::create(int _w, int _h, size_t _elemsize, int _elempack, Allocator* _allocator)
{
    if (dims == 2 && w == _w && h == _h && elemsize == _elemsize && elempack == _elempack && allocator == _allocator && data)
        return;
    release();
    if (!valid_dims(_w, _h, 1, 1) || _elemsize == 0)
        return;
    elemsize = _elemsize;
    elempack = _elempack;
    dims = 2;
    w = _w;
    h = _h;
    d = 1;
    c = 1;
    cstep = checked_bytes(w, h, 1, 1, 1);
    mat_allocate(*this, _allocator);
}

void Mat::create(int _w, int _h, int _c, size_t _elemsize, int _elempack, Allocator* _allocator)
{
    if (dims == 3 && w == _w && h == _h && c == _c && elemsize == _elemsize && elempack == _elempack && allocator == _allocator && data)
        return;
    release();
    if (!valid_dims(_w, _h, _c, 1) || _elemsize == 0)
        return;
    elemsize = _elemsize;
    elempack = _elempack;
    dims = 3;
    w = _w;
    h = _h;
    d = 1;
    c = _c;
    size_t plane = checked_bytes(w, h, 1, 1, elemsize);
    cstep = plane ? align_size(plane, 16) / elemsize : 0;
    mat_allocate(*this, _allocator);
}

void Mat::create(int _w, int _h, int _d, int _c, size_t _elemsize, int _elempack, Allocator* _allocator)
{
    if (dims == 4 && w == _w && h == _h && d == _d && c == _c && elemsize == _elemsize && elempack == _elempack && allocator == _allocator && data)
        return;
    release();
    if (!valid_dims(_w, _h, _d, _c) || _elemsize == 0)
        return;
    elemsize = _elemsize;
    elempack = _elempack;
    dims = 4;
    w = _w;
    h = _h;
    d = _d;
    c = _c;
    size_t plane = checked_bytes(w, h, d, 1, elemsize);
    cstep = plane ? align_size(plane, 16) / elemsize : 0;
    mat_allocate(*this, _allocator);
}

void Mat::create_like(const Mat& m, Allocator* _allocator)
{
    switch (m.dims)
    {
    case 1: create(m.w, m.elemsize, m.elempack, _allocator); break;
    case 2: create(m.w, m.h, m.elemsize, m.elempack, _allocator); break;
    case 3: create(m.w, m.h, m.c, m.elemsize, m.elempack, _allocator); break;
    case 4: create(m.w, m.h, m.d, m.c, m.elemsize, m.elempack, _allocator); break;
    default: release(); break;
    }
}

void Mat::fill(float v)
{
    fill<float>(v);
}

void Mat::fill(int v)
{
    fill<int>(v);
}

Mat Mat::clone(Allocator* _allocator) const
{
    Mat m;
    if (empty())
        return m;
    m.create_like(*this, _allocator);
    if (m.empty())
        return m;
    if (total() > 0)
    {
        if (cstep == m.cstep)
            memcpy(m.data, data, total() * elemsize);
        else
        {
            size_t plane = (size_t)w * h * d * elemsize;
            for (int q = 0; q < c; q++)
                memcpy((unsigned char*)m.data + m.cstep * q * elemsize, (const unsigned char*)data + cstep * q * elemsize, plane);
        }
    }
    return m;
}

void Mat::clone_from(const Mat& m, Allocator* _allocator)
{
    *this = m.clone(_allocator);
}

// Reshape keeps the data when the element order in memory is unchanged, which
// is the case unless channel padding (cstep != w*h*d) must be added or dropped.
static Mat reshape_impl(const Mat& src, int dims, int w, int h, int d, int c, Allocator* allocator)
{
    Mat m;
    size_t src_count = (size_t)src.w * src.h * src.d * src.c;
    size_t dst_count = (size_t)w * h * d * c;
    if (w <= 0 || h <= 0 || d <= 0 || c <= 0 || src_count != dst_count)
    {
        KITE_LOGE("reshape: %d x %d x %d x %d elements cannot become %d x %d x %d x %d", src.w, src.h, src.d, src.c, w, h, d, c);
        return m;
    }
    bool src_padded = src.dims >= 3 && src.cstep != (size_t)src.w * src.h * src.d;

    // gather to a flat, unpadded run first when the source has channel padding
    Mat flat = src;
    if (src_padded)
    {
        flat.release();
        flat.create((int)src_count, src.elemsize, src.elempack, allocator);
        if (flat.empty())
            return m;
        size_t plane = (size_t)src.w * src.h * src.d;
        for (int q = 0; q < src.c; q++)
            memcpy((unsigned char*)flat.data + plane * q * src.elemsize, (const unsigned char*)src.data + src.cstep * q * src.elemsize, plane * src.elemsize);
    }

    if (dims <= 2)
    {
        m = flat;
        m.dims = dims;
        m.w = w;
        m.h = h;
        m.d = 1;
        m.c = 1;
        m.cstep = (size_t)w * h;
        return m;
    }

    size_t plane = (size_t)w * h * d;
    size_t cstep = align_size(plane * src.elemsize, 16) / src.elemsize;
    if (cstep == plane)
    {
        m = flat;
        m.dims = dims;
        m.w = w;
        m.h = h;
        m.d = d;
        m.c = c;
        m.cstep = cstep;
        return m;
    }
    if (dims == 3)
        m.create(w, h, c, src.elemsize, src.elempack, allocator);
    else
        m.create(w, h, d, c, src.elemsize, src.elempack, allocator);
    if (m.empty())
        return m;
    for (int q = 0; q < c; q++)
        memcpy((unsigned char*)m.data + m.cstep * q * m.elemsize, (const unsigned char*)flat.data + plane * q * src.elemsize, plane * src.elemsize);
    return m;
}

Mat Mat::reshape(int _w, Allocator* _allocator) const { return reshape_impl(*this, 1, _w, 1, 1, 1, _allocator); }
Mat Mat::reshape(int _w, int _h, Allocator* _allocator) const { return reshape_impl(*this, 2, _w, _h, 1, 1, _allocator); }
Mat Mat::reshape(int _w, int _h, int _c, Allocator* _allocator) const { return reshape_impl(*this, 3, _w, _h, 1, _c, _allocator); }
Mat Mat::reshape(int _w, int _h, int _d, int _c, Allocator* _allocator) const { return reshape_impl(*this, 4, _w, _h, _d, _c, _allocator); }

// ---------------------------------------------------------------------------
// packing

// n scalars of type T from src (every sstride bytes) to dst (every dstride bytes)
template<typename T>
static void strided_copy(unsigned char* dst, size_t dstride, const unsigned char* src, size_t sstride, size_t n)
{
    for (size_t i = 0; i < n; i++)
    {
        T v;
        memcpy(&v, src + i * sstride, sizeof(T));
        memcpy(dst + i * dstride, &v, sizeof(T));
    }
}

#if defined(__SSE2__)
// 4-byte units, 4 pixels a step: the 4 units at s + k * s_row + i * s_elem
// (k = 0..3) become the 4 units at d + k * d_row + i * d_elem. Packing reads 4
// narrow slices (s_row = slice stride, s_elem = 4) into 4 wide elements
// (d_row = d_elem = wide element size); unpacking the other way round. n: a
// multiple of 4.
static void transpose_runs4_u32(const unsigned char* s, size_t s_row, size_t s_elem, unsigned char* d, size_t d_row,
                                size_t d_elem, size_t n)
{
    const unsigned char* const sr[4] = {s, s + s_row, s + 2 * s_row, s + 3 * s_row};
    unsigned char* const dr[4] = {d, d + d_row, d + 2 * d_row, d + 3 * d_row};
    transpose4x4_u32(sr, 4 * s_elem, dr, 4 * d_elem, n / 4);
}

// 2-byte units, 8 pixels a step: packing gathers 4 narrow slices' 8 units each
// into 8 wide runs of 4 units (8 bytes)
static void pack4_u16(const unsigned char* s, size_t s_row, unsigned char* d, size_t d_elem, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8)
    {
        const __m128i r0 = _mm_loadu_si128((const __m128i*)(s + i * 2));
        const __m128i r1 = _mm_loadu_si128((const __m128i*)(s + s_row + i * 2));
        const __m128i r2 = _mm_loadu_si128((const __m128i*)(s + 2 * s_row + i * 2));
        const __m128i r3 = _mm_loadu_si128((const __m128i*)(s + 3 * s_row + i * 2));
        const __m128i t0 = _mm_unpacklo_epi16(r0, r1), t1 = _mm_unpackhi_epi16(r0, r1);
        const __m128i t2 = _mm_unpacklo_epi16(r2, r3), t3 = _mm_unpackhi_epi16(r2, r3);
        const __m128i u[4] = {_mm_unpacklo_epi32(t0, t2), _mm_unpackhi_epi32(t0, t2), _mm_unpacklo_epi32(t1, t3),
                              _mm_unpackhi_epi32(t1, t3)}; // pixels (0,1), (2,3), (4,5), (6,7)
        unsigned char* o = d + i * d_elem;
        for (int k = 0; k < 4; k++)
        {
            _mm_storel_epi64((__m128i*)(o + (2 * k) * d_elem), u[k]);
            _mm_storel_epi64((__m128i*)(o + (2 * k + 1) * d_elem), _mm_unpackhi_epi64(u[k], u[k]));
        }
    }
}

// the inverse: 8 wide runs of 4 units scattered into 4 narrow slices
static void unpack4_u16(const unsigned char* s, size_t s_elem, unsigned char* d, size_t d_row, size_t n)
{
    for (size_t i = 0; i + 8 <= n; i += 8)
    {
        const unsigned char* p = s + i * s_elem;
        __m128i u[4];
        for (int k = 0; k < 4; k++)
            u[k] = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i*)(p + (2 * k) * s_elem)),
                                      _mm_loadl_epi64((const __m128i*)(p + (2 * k + 1) * s_elem)));
        // u[k] = a b c d of pixel 2k, then of pixel 2k+1
        const __m128i v0 = _mm_unpacklo_epi16(u[0], u[1]), v1 = _mm_unpackhi_epi16(u[0], u[1]);
        const __m128i v2 = _mm_unpacklo_epi16(u[2], u[3]), v3 = _mm_unpackhi_epi16(u[2], u[3]);
        const __m128i w0 = _mm_unpacklo_epi16(v0, v1), w1 = _mm_unpackhi_epi16(v0, v1); // a0-3 b0-3, c0-3 d0-3
        const __m128i w2 = _mm_unpacklo_epi16(v2, v3), w3 = _mm_unpackhi_epi16(v2, v3); // a4-7 b4-7, c4-7 d4-7
        _mm_storeu_si128((__m128i*)(d + i * 2), _mm_unpacklo_epi64(w0, w2));
        _mm_storeu_si128((__m128i*)(d + d_row + i * 2), _mm_unpackhi_epi64(w0, w2));
        _mm_storeu_si128((__m128i*)(d + 2 * d_row + i * 2), _mm_unpacklo_epi64(w1, w3));
        _mm_storeu_si128((__m128i*)(d + 3 * d_row + i * 2), _mm_unpackhi_epi64(w1, w3));
    }
}
#endif

// Vector steps for units of N bytes in groups of 4 slices (ratio % 4 == 0):
// 4-byte units (fp32 elempack 1 <-> 4/8/16, int8 4 <-> 16) by 4x4
// transposes, 2-byte units (fp16 elempack 1 <-> 4/8/16) by 8x4 ones. Packing:
// s is the narrow side (slices nstride bytes apart), d the wide one (elements
// of welem bytes); unpacking the other way round. Returns how many pixels it
// moved (the caller finishes the tail).
template<size_t N>
static size_t pack_runs_vec(const unsigned char* s, unsigned char* d, size_t nstride, size_t welem, size_t plane, int ratio,
                            bool packing)
{
#if defined(__SSE2__)
    if ((N != 4 && N != 2) || ratio % 4 != 0)
        return 0;
    const size_t step = N == 4 ? 4 : 8, done = plane / step * step;
    for (int r = 0; r < ratio; r += 4)
    {
        if (N == 4 && packing)
            transpose_runs4_u32(s + nstride * r, nstride, N, d + r * N, welem, welem, done);
        else if (N == 4)
            transpose_runs4_u32(s + r * N, welem, welem, d + nstride * r, nstride, N, done);
        else if (packing)
            pack4_u16(s + nstride * r, nstride, d + r * N, welem, done);
        else
            unpack4_u16(s + r * N, welem, d + nstride * r, nstride, done);
    }
    return done;
#else
    (void)s, (void)d, (void)nstride, (void)welem, (void)plane, (void)ratio, (void)packing;
    return 0;
#endif
}

// Repacking where one elempack divides the other moves runs of `run` bytes
// (the smaller elempack's element): gathering `ratio` runs from consecutive
// source slices into each wider element (packing), or scattering each wider
// source element into `ratio` slices (unpacking). The wide side is walked
// sequentially, one slice per task. Run sizes are compile-time so every copy
// (a fixed-size memcpy) is a plain load/store; 4- and 2-byte runs go through
// vector transposes (pack_runs_vec); false when `run` has no instance (caller falls back).
template<size_t N>
static void pack_runs_n(const unsigned char* sp, size_t sstride, size_t selem, unsigned char* dp, size_t dstride,
                        size_t delem, size_t plane, int groups, int ratio, bool packing, int num_threads)
{
    #pragma omp parallel for num_threads(num_threads)
    for (int g = 0; g < groups; g++)
    {
        if (packing)
        {
            // wide destination slice g gathers source slices g*ratio .. g*ratio+ratio-1
            unsigned char* d = dp + dstride * g;
            const unsigned char* s0 = sp + sstride * g * ratio;
            for (size_t i = pack_runs_vec<N>(s0, d, sstride, delem, plane, ratio, true); i < plane; i++)
                for (int r = 0; r < ratio; r++)
                    memcpy(d + i * delem + r * N, s0 + sstride * r + i * selem, N);
        }
        else
        {
            const unsigned char* s = sp + sstride * g;
            unsigned char* d0 = dp + dstride * g * ratio;
            for (size_t i = pack_runs_vec<N>(s, d0, dstride, selem, plane, ratio, false); i < plane; i++)
                for (int r = 0; r < ratio; r++)
                    memcpy(d0 + dstride * r + i * delem, s + i * selem + r * N, N);
        }
    }
}

static bool pack_runs(const unsigned char* sp, size_t sstride, size_t selem, unsigned char* dp, size_t dstride, size_t delem,
                      size_t plane, int groups, int ratio, size_t run, bool packing, int num_threads)
{
#define KITE_PACK_RUN_CASE(N) \
    case N:                   \
        pack_runs_n<N>(sp, sstride, selem, dp, dstride, delem, plane, groups, ratio, packing, num_threads); \
        return true;
    switch (run)
    {
        KITE_PACK_RUN_CASE(1)
        KITE_PACK_RUN_CASE(2)
        KITE_PACK_RUN_CASE(4)
        KITE_PACK_RUN_CASE(8)
        KITE_PACK_RUN_CASE(16)
        KITE_PACK_RUN_CASE(32)
        KITE_PACK_RUN_CASE(64)
    default:
        return false;
    }
#undef KITE_PACK_RUN_CASE
}

void convert_packing(const Mat& src, Mat& dst, int out_elempack, const Option& opt)
{
    if (src.empty() || src.elempack == out_elempack || out_elempack <= 0)
    {
        dst = src;
        return;
    }
    const int in_elempack = src.elempack;
    const size_t scalar = src.elemsize / in_elempack;

    // the packing axis: w for dims 1, h for dims 2, c for dims 3/4
    int axis = src.dims == 1 ? src.w : src.dims == 2 ? src.h : src.c;
    int scalars = axis * in_elempack;
    if (scalars % out_elempack != 0)
    {
        dst = src;
        return;
    }
    int out_axis = scalars / out_elempack;
    size_t out_elemsize = scalar * out_elempack;

    if (src.dims == 1)
    {
        // a 1-D Mat is just a run of scalars: same bytes, new element view
        dst = src;
        dst.w = out_axis;
        dst.cstep = out_axis;
        dst.elemsize = out_elemsize;
        dst.elempack = out_elempack;
        return;
    }

    Mat out;
    if (src.dims == 2)
        out.create(src.w, out_axis, out_elemsize, out_elempack, opt.blob_allocator);
    else if (src.dims == 3)
        out.create(src.w, src.h, out_axis, out_elemsize, out_elempack, opt.blob_allocator);
    else
        out.create(src.w, src.h, src.d, out_axis, out_elemsize, out_elempack, opt.blob_allocator);
    if (out.empty())
    {
        dst.release();
        return;
    }

    // plane = number of packed elements in one slice along the packing axis
    const size_t plane = src.dims == 2 ? (size_t)src.w : (size_t)src.w * src.h * src.d;
    const size_t src_stride = src.dims == 2 ? (size_t)src.w : src.cstep;
    const size_t dst_stride = src.dims == 2 ? (size_t)out.w : out.cstep;
    const unsigned char* sp = (const unsigned char*)src.data;
    unsigned char* dp = (unsigned char*)out.data;

    const int lo = std::min(in_elempack, out_elempack), hi = std::max(in_elempack, out_elempack);
    if (hi % lo == 0 && pack_runs(sp, src_stride * src.elemsize, src.elemsize, dp, dst_stride * out_elemsize, out_elemsize,
                                  plane, in_elempack < out_elempack ? out_axis : axis, hi / lo, lo * scalar,
                                  in_elempack < out_elempack, opt.num_threads))
    {
        dst = out;
        return;
    }

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int oq = 0; oq < out_axis; oq++)
    {
        for (int k = 0; k < out_elempack; k++)
        {
            int s = oq * out_elempack + k; // scalar index along the axis
            int iq = s / in_elempack;
            int ik = s % in_elempack;
            const unsigned char* sptr = sp + (src_stride * iq) * src.elemsize + ik * scalar;
            unsigned char* dptr = dp + (dst_stride * oq) * out_elemsize + k * scalar;
            // typed copies for the usual scalar sizes (a memcpy call per
            // scalar costs more than the copy)
            if (scalar == 4)
                strided_copy<uint32_t>(dptr, out_elemsize, sptr, src.elemsize, plane);
            else if (scalar == 2)
                strided_copy<uint16_t>(dptr, out_elemsize, sptr, src.elemsize, plane);
            else if (scalar == 1)
                strided_copy<uint8_t>(dptr, out_elemsize, sptr, src.elemsize, plane);
            else
                for (size_t i = 0; i < plane; i++)
                    memcpy(dptr + i * out_elemsize, sptr + i * src.elemsize, scalar);
        }
    }
    dst = out;
}

// ---------------------------------------------------------------------------
// borders

namespace {
int border_index(int i, int n, int type)
{
    if (i >= 0 && i < n)
        return i;
    if (type == BORDER_REPLICATE)
        return i < 0 ? 0 : n - 1;
    // reflect without repeating the edge: -1 -> 1, n -> n-2
    if (n == 1)
        return 0;
    int period = 2 * (n - 1);
    int m = i % period;
    if (m < 0)
        m += period;
    return m < n ? m : period - m;
}

// n copies of the ES-byte value v at o (ES 0: elemsize bytes known at run
// time); fixed sizes compile to plain stores
template<size_t ES>
inline void fill_run_t(unsigned char* o, size_t n, const unsigned char* v, size_t elemsize)
{
    const size_t es = ES ? ES : elemsize;
    for (size_t i = 0; i < n; i++)
        memcpy(o + i * es, v, ES ? ES : elemsize);
}

// one plane row by row: the source row in one copy, the side borders filled
// (constant) or picked element by element (replicate/reflect)
template<size_t ES>
void make_border_plane_t(const unsigned char* src, int w, int h, unsigned char* dst, int outw, int outh, int top, int left,
                         int type, const unsigned char* fillv, size_t elemsize)
{
    const size_t es = ES ? ES : elemsize;
    const int right = outw - w - left;
    for (int y = 0; y < outh; y++)
    {
        const int sy = y - top;
        unsigned char* o = dst + (size_t)y * outw * es;
        if ((sy < 0 || sy >= h) && type == BORDER_CONSTANT)
        {
            fill_run_t<ES>(o, (size_t)outw, fillv, elemsize);
            continue;
        }
        const unsigned char* srow = src + (size_t)border_index(sy, h, type) * w * es;
        if (type == BORDER_CONSTANT)
        {
            fill_run_t<ES>(o, (size_t)left, fillv, elemsize);
            fill_run_t<ES>(o + (size_t)(left + w) * es, (size_t)right, fillv, elemsize);
        }
        else
        {
            for (int x = 0; x < left; x++)
                memcpy(o + (size_t)x * es, srow + (size_t)border_index(x - left, w, type) * es, es);
            for (int x = left + w; x < outw; x++)
                memcpy(o + (size_t)x * es, srow + (size_t)border_index(x - left, w, type) * es, es);
        }
        memcpy(o + (size_t)left * es, srow, (size_t)w * es);
    }
}

// the plane (or, with src null, a constant plane) for the blob's element size
void make_border_plane(const unsigned char* src, int w, int h, unsigned char* dst, int outw, int outh, int top, int left,
                       int type, const unsigned char* fillv, size_t elemsize)
{
    switch (elemsize)
    {
#define KITE_BORDER_ES(ES)                                                                            \
    case ES:                                                                                          \
        if (!src)                                                                                     \
            return fill_run_t<ES>(dst, (size_t)outw * outh, fillv, elemsize);                         \
        return make_border_plane_t<ES>(src, w, h, dst, outw, outh, top, left, type, fillv, elemsize);
        KITE_BORDER_ES(1)
        KITE_BORDER_ES(2)
        KITE_BORDER_ES(4)
        KITE_BORDER_ES(8)
        KITE_BORDER_ES(16)
        KITE_BORDER_ES(32)
        KITE_BORDER_ES(64)
#undef KITE_BORDER_ES
    default:
        if (!src)
            return fill_run_t<0>(dst, (size_t)outw * outh, fillv, elemsize);
        return make_border_plane_t<0>(src, w, h, dst, outw, outh, top, left, type, fillv, elemsize);
    }
}

void fill_value(unsigned char* buf, size_t elemsize, int elempack, float v)
{
    size_t scalar = elemsize / elempack;
    for (int k = 0; k < elempack; k++)
    {
        unsigned char* p = buf + k * scalar;
        if (scalar == 4)
            memcpy(p, &v, 4);
        else if (scalar == 2)
        {
            unsigned short h = float32_to_float16(v);
            memcpy(p, &h, 2);
        }
        else if (scalar == 1)
            *(signed char*)p = (signed char)v;
        else
            memset(p, 0, scalar);
    }
}
} // namespace

void copy_make_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, int type, float v, const Option& opt)
{
    copy_make_border_3d(src, dst, top, bottom, left, right, 0, 0, type, v, opt);
}

void copy_make_border_3d(const Mat& src, Mat& dst, int top, int bottom, int left, int right, int front, int behind, int type, float v, const Option& opt)
{
    if (top < 0 || bottom < 0 || left < 0 || right < 0 || front < 0 || behind < 0)
    {
        KITE_LOGE("copy_make_border: negative border");
        dst.release();
        return;
    }
    int w = src.w, h = src.h, d = src.d;
    int outw = w + left + right;
    int outh = src.dims == 1 ? 1 : h + top + bottom;
    int outd = src.dims == 4 ? d + front + behind : 1;
    if (src.dims == 1)
    {
        top = 0;
    }
    Mat out;
    if (src.dims == 1)
        out.create(outw, src.elemsize, src.elempack, opt.blob_allocator);
    else if (src.dims == 2)
        out.create(outw, outh, src.elemsize, src.elempack, opt.blob_allocator);
    else if (src.dims == 3)
        out.create(outw, outh, src.c, src.elemsize, src.elempack, opt.blob_allocator);
    else
        out.create(outw, outh, outd, src.c, src.elemsize, src.elempack, opt.blob_allocator);
    if (out.empty())
    {
        dst.release();
        return;
    }
    unsigned char fillv[64];
    fill_value(fillv, src.elemsize, src.elempack, v);
    const int channels = src.dims >= 3 ? src.c : 1;
    const int sh = src.dims == 1 ? 1 : h;

    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        const unsigned char* sc = (const unsigned char*)src.data + (src.dims >= 3 ? src.cstep * q * src.elemsize : 0);
        unsigned char* oc = (unsigned char*)out.data + (src.dims >= 3 ? out.cstep * q * out.elemsize : 0);
        for (int z = 0; z < outd; z++)
        {
            int sz = z - front;
            unsigned char* op = oc + (size_t)outw * outh * z * out.elemsize;
            bool zin = sz >= 0 && sz < d;
            if (!zin && type == BORDER_CONSTANT)
            {
                make_border_plane(nullptr, w, sh, op, outw, outh, top, left, type, fillv, out.elemsize);
                continue;
            }
            int zz = src.dims == 4 ? border_index(sz, d, type) : 0;
            const unsigned char* sp = sc + (size_t)w * sh * zz * src.elemsize;
            make_border_plane(sp, w, sh, op, outw, outh, top, left, type, fillv, src.elemsize);
        }
    }
    dst = out;
}

void copy_cut_border(const Mat& src, Mat& dst, int top, int bottom, int left, int right, const Option& opt)
{
    int outw = src.w - left - right;
    int outh = src.dims == 1 ? 1 : src.h - top - bottom;
    if (top < 0 || bottom < 0 || left < 0 || right < 0 || outw <= 0 || outh <= 0)
    {
        KITE_LOGE("copy_cut_border: cut %d,%d,%d,%d does not fit %d x %d", top, bottom, left, right, src.w, src.h);
        dst.release();
        return;
    }
    if (src.dims == 1)
        top = 0;
    Mat out;
    if (src.dims == 1)
        out.create(outw, src.elemsize, src.elempack, opt.blob_allocator);
    else if (src.dims == 2)
        out.create(outw, outh, src.elemsize, src.elempack, opt.blob_allocator);
    else if (src.dims == 3)
        out.create(outw, outh, src.c, src.elemsize, src.elempack, opt.blob_allocator);
    else
        out.create(outw, outh, src.d, src.c, src.elemsize, src.elempack, opt.blob_allocator);
    if (out.empty())
    {
        dst.release();
        return;
    }
    const int channels = src.dims >= 3 ? src.c : 1;
    const int depths = src.dims == 4 ? src.d : 1;
    const int sh = src.dims == 1 ? 1 : src.h;
    #pragma omp parallel for num_threads(opt.num_threads)
    for (int q = 0; q < channels; q++)
    {
        for (int z = 0; z < depths; z++)
        {
            const unsigned char* sp = (const unsigned char*)src.data + (src.dims >= 3 ? src.cstep * q * src.elemsize : 0) + (size_t)src.w * sh * z * src.elemsize;
            unsigned char* op = (unsigned char*)out.data + (src.dims >= 3 ? out.cstep * q * out.elemsize : 0) + (size_t)outw * outh * z * out.elemsize;
            for (int y = 0; y < outh; y++)
                memcpy(op + (size_t)y * outw * out.elemsize, sp + ((size_t)(y + top) * src.w + left) * src.elemsize, (size_t)outw * src.elemsize);
        }
    }
    dst = out;
}

} // namespace kite
