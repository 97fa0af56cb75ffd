#ifndef KITE_LAYER_COMMON_SHAPE_UTIL_H
#define KITE_LAYER_COMMON_SHAPE_UTIL_H

// Helpers for the shape / data-movement layers (Concat, Slice, Crop, Tile,
// Padding, Permute, ...). They look at a Mat through its "logical" shape,
// outermost axis first, exactly as ncnn numbers axes (the batch excluded):
//   dims 1: [w]   dims 2: [h, w]   dims 3: [c, h, w]   dims 4: [c, d, h, w]
// All helpers work on elempack 1 blobs of any elemsize (fp32, fp16, int8).

#include "mat.h"

#include <cstdio>
#include <cstring>

namespace kite {
namespace shape {

// logical extents, outermost first; n = dims
struct Dims
{
    int n;
    int s[4];
};

inline Dims dims_of(const Mat& m)
{
    Dims r;
    r.n = m.dims;
    r.s[0] = r.s[1] = r.s[2] = r.s[3] = 1;
    if (m.dims == 1)
        r.s[0] = m.w;
    if (m.dims == 2)
    {
        r.s[0] = m.h;
        r.s[1] = m.w;
    }
    if (m.dims == 3)
    {
        r.s[0] = m.c;
        r.s[1] = m.h;
        r.s[2] = m.w;
    }
    if (m.dims == 4)
    {
        r.s[0] = m.c;
        r.s[1] = m.d;
        r.s[2] = m.h;
        r.s[3] = m.w;
    }
    return r;
}

// logical axis (0..dims-1) -> its position in (c, d, h, w): a dims-3 blob
// has no d, so its axes go to c, h, w
inline int cdhw_axis(int dims, int axis)
{
    if (dims == 3)
        return axis == 0 ? 0 : axis + 1;
    return 4 - dims + axis;
}

// the same extents (or coordinates) spread over (c, d, h, w); missing axes get `fill`
inline void to_cdhw(const Dims& d, int* cdhw, int fill = 1)
{
    cdhw[0] = cdhw[1] = cdhw[2] = cdhw[3] = fill;
    for (int i = 0; i < d.n; i++)
        cdhw[cdhw_axis(d.n, i)] = d.s[i];
}

// ncnn axis convention: negative counts from the end; -1 if out of range
inline int normalize_axis(int axis, int dims)
{
    if (axis < 0)
        axis += dims;
    if (axis < 0 || axis >= dims)
        return -1;
    return axis;
}

// allocate a Mat of the given logical shape
inline void create_dims(Mat& m, const Dims& d, size_t elemsize, Allocator* allocator)
{
    if (d.n == 1)
        m.create(d.s[0], elemsize, allocator);
    else if (d.n == 2)
        m.create(d.s[1], d.s[0], elemsize, allocator);
    else if (d.n == 3)
        m.create(d.s[2], d.s[1], d.s[0], elemsize, allocator);
    else if (d.n == 4)
        m.create(d.s[3], d.s[2], d.s[1], d.s[0], elemsize, allocator);
    else
        m.release();
}

inline size_t total_of(const Dims& d)
{
    size_t t = 1;
    for (int i = 0; i < d.n; i++)
        t *= (size_t)d.s[i];
    return t;
}

// byte pointer to element (q, z, y, x) of a Mat (any dims: unused outer indices 0)
inline unsigned char* ptr_at(const Mat& m, int q, int z, int y, int x)
{
    const size_t offset = (size_t)q * m.cstep + ((size_t)z * m.h + y) * (size_t)m.w + x;
    return (unsigned char*)m.data + offset * m.elemsize;
}

// Copy the box of extents ext (c, d, h, w) from src at sstart to dst at
// dstart. Both Mats must have the same elemsize; the caller checks bounds.
inline void copy_box(const Mat& src, const int* sstart, Mat& dst, const int* dstart, const int* ext, int num_threads)
{
    const size_t rowbytes = (size_t)ext[3] * src.elemsize;
    #pragma omp parallel for num_threads(num_threads)
    for (int q = 0; q < ext[0]; q++)
    {
        for (int z = 0; z < ext[1]; z++)
        {
            for (int y = 0; y < ext[2]; y++)
            {
                const unsigned char* s = ptr_at(src, sstart[0] + q, sstart[1] + z, sstart[2] + y, sstart[3]);
                unsigned char* o = ptr_at(dst, dstart[0] + q, dstart[1] + z, dstart[2] + y, dstart[3]);
                memcpy(o, s, rowbytes);
            }
        }
    }
}

// element-wise copy of any dims to a new Mat (same shape, compact cstep)
inline int clone_to(const Mat& src, Mat& dst, Allocator* allocator)
{
    dst = src.clone(allocator);
    return dst.empty() ? -100 : 0;
}

inline const char* dims_string(const Mat& m, char* buf, size_t n)
{
    if (m.dims == 1)
        snprintf(buf, n, "[w=%d]", m.w);
    else if (m.dims == 2)
        snprintf(buf, n, "[w=%d h=%d]", m.w, m.h);
    else if (m.dims == 3)
        snprintf(buf, n, "[w=%d h=%d c=%d]", m.w, m.h, m.c);
    else if (m.dims == 4)
        snprintf(buf, n, "[w=%d h=%d d=%d c=%d]", m.w, m.h, m.d, m.c);
    else
        snprintf(buf, n, "[dims=%d]", m.dims);
    return buf;
}

// elempack 1 and a dims in 1..4: the layers here only handle that
inline bool plain_blob(const Mat& m)
{
    return !m.empty() && m.elempack == 1 && m.dims >= 1 && m.dims <= 4;
}

} // namespace shape
} // namespace kite

#endif // KITE_LAYER_COMMON_SHAPE_UTIL_H
