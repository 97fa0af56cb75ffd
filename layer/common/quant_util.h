#ifndef KITE_LAYER_COMMON_QUANT_UTIL_H
#define KITE_LAYER_COMMON_QUANT_UTIL_H

// Shared by Quantize, Dequantize and Requantize: ncnn applies per-"group"
// scale/bias arrays, where a group is one row (dims 2) or one channel (dims 3
// and 4). A dims-1 blob is a single group: current ncnn uses element 0 of the
// arrays for all of it, whatever their size (checked against ncnn 1.0.2026).

#include "log.h"
#include "mat.h"

#include <cstddef>

namespace kite {

struct QuantLayout
{
    int groups;  // number of scale groups
    size_t size; // elements per group
};

static inline QuantLayout quant_layout(const Mat& m)
{
    QuantLayout l;
    if (m.dims == 1)
    {
        l.groups = 1;
        l.size = (size_t)m.w;
    }
    else if (m.dims == 2)
    {
        l.groups = m.h;
        l.size = (size_t)m.w;
    }
    else
    {
        l.groups = m.c;
        l.size = (size_t)m.w * m.h * (m.dims == 4 ? m.d : 1);
    }
    return l;
}

// pointer to the first element of group gi
template<typename T>
static inline T* quant_group_ptr(const Mat& m, const QuantLayout& l, int gi)
{
    typedef unsigned char byte;
    if (m.dims <= 2)
        return (T*)((byte*)m.data + l.size * gi * m.elemsize);
    return (T*)((byte*)m.data + m.cstep * gi * m.elemsize);
}

// an array of `n` values applies to `groups` groups if n == 1 or n == groups
// (a single group takes element 0 of any array, as ncnn)
static inline bool quant_check_size(int n, int groups, const char* type, const char* name, const char* what)
{
    if (n == 1 || n == groups || groups == 1)
        return true;
    KITE_LOGE("%s '%s': %s %d must be 1 or %d for this input", type, name, what, n, groups);
    return false;
}

static inline int quant_create_like(const Mat& in, Mat& out, size_t elemsize, Allocator* allocator)
{
    if (in.dims == 1)
        out.create(in.w, elemsize, allocator);
    else if (in.dims == 2)
        out.create(in.w, in.h, elemsize, allocator);
    else if (in.dims == 3)
        out.create(in.w, in.h, in.c, elemsize, allocator);
    else
        out.create(in.w, in.h, in.d, in.c, elemsize, allocator);
    return out.empty() ? -100 : 0;
}

} // namespace kite

#endif // KITE_LAYER_COMMON_QUANT_UTIL_H
