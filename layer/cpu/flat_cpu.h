#ifndef KITE_CPU_FLAT_H
#define KITE_CPU_FLAT_H

// Moving a blob of any elempack to and from its scalars in logical order
// (outermost axis first, as ncnn's Flatten and Reshape see them), for the
// Flatten and Reshape drivers (included by layer/cpu/*_cpu.cpp, compiled per
// ISA inside kite::KITE_ISA_NS).
//
//   flat_contiguous(m)          m's memory already is its scalars in order
//   flat_scalars(m)             how many scalars m holds
//   flatten_into(m, dst)        m's scalars in order into dst (dense)
//   unflatten_into(src, top)    dense scalars in order into top (any elempack)
//   view_as(m, dims, s, ep)     m's memory seen with another shape (no copy)

#include "cpu/packing_cpu.h"

namespace kite {
namespace KITE_ISA_NS {

static inline size_t flat_plane(const Mat& m)
{
    return m.dims == 1 ? 1 : m.dims == 2 ? (size_t)m.w : (size_t)m.w * m.h * m.d;
}

static inline size_t flat_scalars(const Mat& m)
{
    return (size_t)m.w * m.h * m.d * m.c * m.elempack;
}

// a 1-D blob keeps its scalars in order whatever its elempack; otherwise an
// unpacked blob without padding between its channels
static inline bool flat_contiguous(const Mat& m)
{
    if (m.dims == 1)
        return true;
    return m.elempack == 1 && (m.dims == 2 || m.c == 1 || m.cstep == flat_plane(m));
}

// dst: flat_scalars(m) scalars of m's scalar size
static inline void flatten_into(const Mat& m, unsigned char* dst, int num_threads)
{
    const int es = (int)(m.elemsize / m.elempack);
    const size_t plane = flat_plane(m);
    if (flat_contiguous(m))
    {
        memcpy(dst, m.data, flat_scalars(m) * es);
        return;
    }
    const PackAxis src = pack_axis(m);
    PackAxis d;
    d.data = dst;
    d.unit_bytes = plane * es;
    d.plane = plane;
    d.ep = 1;
    d.es = es;
    d.count = src.count;
    copy_channels(src, 0, d, 0, src.count, num_threads);
}

// top already created with its shape and elempack; src: its scalars in order
static inline void unflatten_into(const unsigned char* src, Mat& top, int num_threads)
{
    const int es = (int)(top.elemsize / top.elempack);
    if (flat_contiguous(top))
    {
        memcpy(top.data, src, flat_scalars(top) * es);
        return;
    }
    const PackAxis d = pack_axis(top);
    PackAxis s;
    s.data = (unsigned char*)src;
    s.unit_bytes = d.plane * es;
    s.plane = d.plane;
    s.ep = 1;
    s.es = es;
    s.count = d.count;
    copy_channels(s, 0, d, 0, d.count, num_threads);
}

// m's memory (flat_contiguous) as a blob of `dims` dims and sizes s (w, h, d,
// c slots) packed by ep along its outermost axis; only valid where that
// layout is the scalars in order: dims 1 (any ep), dims 2 with ep 1, dims
// 3/4 with ep 1 whose planes (w * h * d scalars) fill whole 16-byte units
static inline Mat view_as(const Mat& m, int dims, const int* s, int ep)
{
    Mat v = m;
    const size_t es = m.elemsize / m.elempack;
    v.dims = dims;
    v.w = dims == 1 ? s[0] / ep : s[0];
    v.h = dims >= 2 ? s[1] : 1;
    v.d = dims == 4 ? s[2] : 1;
    v.c = dims >= 3 ? s[3] : 1;
    v.elemsize = es * ep;
    v.elempack = ep;
    v.cstep = (size_t)v.w * v.h * v.d;
    return v;
}

// the axis a blob of `dims` dims with sizes s (w, h, d, c slots) packs
static inline int packing_axis_size(int dims, const int* s)
{
    return dims == 1 ? s[0] : dims == 2 ? s[1] : s[3];
}

// the elempack a CPU driver gives an output of `scalars` along its packing
// axis (int8 stays planar, as the Net keeps it)
static inline int output_elempack(int scalars, int es)
{
    return es == 1 ? 1 : best_elempack(scalars);
}

// create top with dims and sizes s (w, h, d, c slots, in scalars), packed by ep
static inline void create_shaped(Mat& top, int dims, const int* s, int es, int ep, Allocator* allocator)
{
    if (dims == 1)
        top.create(s[0] / ep, (size_t)es * ep, ep, allocator);
    else if (dims == 2)
        top.create(s[0], s[1] / ep, (size_t)es * ep, ep, allocator);
    else if (dims == 3)
        top.create(s[0], s[1], s[3] / ep, (size_t)es * ep, ep, allocator);
    else
        top.create(s[0], s[1], s[2], s[3] / ep, (size_t)es * ep, ep, allocator);
}

} // namespace KITE_ISA_NS
} // namespace kite

#endif // KITE_CPU_FLAT_H
