#ifndef KITE_CPU_PACKING_H
#define KITE_CPU_PACKING_H

// Helpers shared by the x86 drivers that take packed blobs (included by
// layer/cpu/*_cpu.cpp, compiled per ISA inside kite::KITE_ISA_NS).
//
//   to_fp32_pack1(in, out, opt)  an fp32 elempack-1 view or copy of any blob
//   KITE_CPU_DISPATCH_PACK(P, ep, CALL) runs CALL with the compile-time int P
//                                        equal to the run-time elempack ep
//                                        (1, 4 and the widths this ISA has; CALL may hold commas)
//
//   best_elempack, PackAxis, copy_channels: moving scalar channels along the
//   packing axis between blobs of any elempack (Concat, Slice, Crop, ShuffleChannel)
//   packed_as_wide: run an element-moving reference on packed data
//
// A driver meets a case it has no packed kernel for (rare parameters, dims it
// does not expect) by running its reference on to_fp32_pack1 of the input:
// correct, and the Net never has to know.

#include "layer.h"
#include "log.h"
#include "pack_transpose.h"
#include "simd/simd.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace kite {
namespace KITE_ISA_NS {

// 0, or -100 when out of memory
static inline int to_fp32_pack1(const Mat& in, Mat& out, const Option& opt)
{
    Mat a = in;
    if (a.elembits() == 16)
    {
        Mat f;
        cast_float16_to_float32(a, f, opt);
        if (f.empty())
            return -100;
        a = f;
    }
    if (a.elempack != 1)
    {
        Mat u;
        convert_packing(a, u, 1, opt);
        if (u.empty())
            return -100;
        a = u;
    }
    out = a;
    return 0;
}

static inline int to_fp32_pack1(const std::vector<Mat>& in, std::vector<Mat>& out, const Option& opt)
{
    out.resize(in.size());
    for (size_t i = 0; i < in.size(); i++)
    {
        int ret = to_fp32_pack1(in[i], out[i], opt);
        if (ret != 0)
            return ret;
    }
    return 0;
}


// whether KITE_CPU_DISPATCH_PACK has a kernel width for elempack ep
static inline bool dispatchable_pack(int ep)
{
    return ep == 1 || ep == 4 || (ep == 8 && KITE_SIMD_MAX_N >= 8) || (ep == 16 && KITE_SIMD_MAX_N >= 16);
}

// the widest elempack this ISA uses that divides `count` scalars
static inline int best_elempack(int count)
{
    for (int p = KITE_SIMD_MAX_N; p > 1; p /= 2)
        if (p >= 4 && count % p == 0)
            return p;
    return 1;
}

// A blob seen along its packing axis (w for dims 1, h for dims 2, c for dims
// 3 and 4, always the outermost axis): scalar channel i is lane i % ep of
// packed unit i / ep, and holds `plane` elements (stride ep scalars).
struct PackAxis
{
    unsigned char* data;
    size_t unit_bytes; // from one packed unit to the next
    size_t plane;      // elements per channel
    int ep;
    int es;            // bytes per scalar
    int count;         // scalar channels
};

static inline PackAxis pack_axis(const Mat& m)
{
    PackAxis a;
    a.data = (unsigned char*)m.data;
    a.ep = m.elempack;
    a.es = (int)(m.elemsize / m.elempack);
    if (m.dims == 1)
        a.unit_bytes = m.elemsize, a.plane = 1, a.count = m.w * m.elempack;
    else if (m.dims == 2)
        a.unit_bytes = (size_t)m.w * m.elemsize, a.plane = (size_t)m.w, a.count = m.h * m.elempack;
    else
        a.unit_bytes = m.cstep * m.elemsize, a.plane = (size_t)m.w * m.h * m.d, a.count = m.c * m.elempack;
    return a;
}

// a Mat shaped like m with `count` scalar channels on the packing axis, packed by ep
static inline void create_like_axis(Mat& top, const Mat& m, int count, int ep, Allocator* allocator)
{
    const size_t es = m.elemsize / m.elempack;
    if (m.dims == 1)
        top.create(count / ep, es * ep, ep, allocator);
    else if (m.dims == 2)
        top.create(m.w, count / ep, es * ep, ep, allocator);
    else if (m.dims == 3)
        top.create(m.w, m.h, count / ep, es * ep, ep, allocator);
    else
        top.create(m.w, m.h, m.d, count / ep, es * ep, ep, allocator);
}

template<class E>
static inline void copy_strided(const unsigned char* s, int ss, unsigned char* d, int ds, size_t n)
{
    const E* sp = (const E*)s;
    E* dp = (E*)d;
    for (size_t i = 0; i < n; i++)
        dp[i * ds] = sp[i * ss];
}

// a whole unit as runs of R lanes that lie next to each other in the source
// (Concat of elempack-4 blobs into elempack 8, Slice the other way): one
// R-scalar copy per run and pixel instead of R scalar copies. False (nothing
// written) when some run is not contiguous in the source.
template<class E, int DS, int SS, int R>
static bool gather_lane_runs(const unsigned char* const* lane_src, E* d, size_t plane)
{
    if (R > SS || R > DS || DS % R != 0)
        return false;
    for (int l = 0; l < DS; l += R)
        for (int j = 1; j < R; j++)
            if (lane_src[l + j] != lane_src[l] + j * sizeof(E))
                return false;
    const E* sp[DS / R > 0 ? DS / R : 1];
    for (int g = 0; g < DS / R; g++)
        sp[g] = (const E*)lane_src[g * R];
    for (size_t i = 0; i < plane; i++)
        for (int g = 0; g < DS / R; g++)
            memcpy(d + i * DS + g * R, sp[g] + i * SS, R * sizeof(E));
    return true;
}

// whole units of 4-byte lanes gathered by vectors (false: nothing written):
// - from elempack-1 planes (SS == 1: Concat of unpacked blobs into a packed
//   one), 4 lanes x 4 pixels per 4x4 transpose;
// - as an interleave of two runs of DS/2 adjacent source lanes (lanes 2k and
//   2k+1 from a + k and b + k: ShuffleChannel with 2 groups), SSE unpacks.
template<class E, int DS, int SS>
static bool gather_lanes_vec(const unsigned char* const* lane_src, E* d, size_t plane)
{
#if defined(__SSE2__)
    if (sizeof(E) != 4 || DS < 4)
        return false;
    unsigned char* dst = (unsigned char*)d;
    const size_t es = sizeof(E);
    if (SS == 1)
    {
        const size_t done = plane / 4 * 4;
        for (int l = 0; l < DS; l += 4)
        {
            unsigned char* const dr[4] = {dst + l * es, dst + (DS + l) * es, dst + (2 * DS + l) * es, dst + (3 * DS + l) * es};
            transpose4x4_u32(lane_src + l, 16, dr, 4 * DS * es, done / 4);
        }
        for (size_t i = done; i < plane; i++)
            for (int l = 0; l < DS; l++)
                d[i * DS + l] = ((const E*)lane_src[l])[i];
        return true;
    }
    const int H = DS / 2;
    if (SS < H)
        return false;
    for (int k = 0; k < H; k++)
        if (lane_src[2 * k] != lane_src[0] + k * es || lane_src[2 * k + 1] != lane_src[1] + k * es)
            return false;
    const unsigned char* a = lane_src[0];
    const unsigned char* b = lane_src[1];
    for (size_t i = 0; i < plane; i++)
    {
        const float* pa = (const float*)(a + i * SS * es);
        const float* pb = (const float*)(b + i * SS * es);
        float* o = (float*)(dst + i * DS * es);
        if (H == 2)
            _mm_storeu_ps(o, _mm_unpacklo_ps(_mm_castpd_ps(_mm_load_sd((const double*)pa)),
                                             _mm_castpd_ps(_mm_load_sd((const double*)pb))));
        else
            for (int c = 0; c < H; c += 4)
            {
                const __m128 va = _mm_loadu_ps(pa + c), vb = _mm_loadu_ps(pb + c);
                _mm_storeu_ps(o + 2 * c, _mm_unpacklo_ps(va, vb));
                _mm_storeu_ps(o + 2 * c + 4, _mm_unpackhi_ps(va, vb));
            }
    }
    return true;
#else
    (void)lane_src, (void)d, (void)plane;
    return false;
#endif
}

// lanes [l0, l1) of `plane` packed units of DS scalars at dst, lane l read
// with stride SS scalars from lane_src[l]; a whole unit is written pixel by
// pixel (contiguous stores, DS streams read), so the compiler keeps the
// lanes in registers
template<class E, int DS, int SS>
static void gather_lanes(const unsigned char* const* lane_src, unsigned char* dst, int l0, int l1, size_t plane)
{
    E* d = (E*)dst;
    if (l0 == 0 && l1 == DS)
    {
        if (gather_lane_runs<E, DS, SS, 8>(lane_src, d, plane) || gather_lane_runs<E, DS, SS, 4>(lane_src, d, plane)
            || gather_lanes_vec<E, DS, SS>(lane_src, d, plane))
            return;
        const E* sp[DS];
        for (int l = 0; l < DS; l++)
            sp[l] = (const E*)lane_src[l];
        for (size_t i = 0; i < plane; i++)
            for (int l = 0; l < DS; l++)
                d[i * DS + l] = sp[l][i * SS];
        return;
    }
    for (int l = l0; l < l1; l++)
    {
        const E* sp = (const E*)lane_src[l];
        for (size_t i = 0; i < plane; i++)
            d[i * DS + l] = sp[i * SS];
    }
}

typedef void (*GatherLanesFn)(const unsigned char* const*, unsigned char*, int, int, size_t);

template<class E, int DS>
static inline GatherLanesFn gather_lanes_fn_ds(int ss)
{
    switch (ss)
    {
    case 1:
        return gather_lanes<E, DS, 1>;
    case 4:
        return gather_lanes<E, DS, 4>;
    case 8:
        return gather_lanes<E, DS, 8>;
    case 16:
        return gather_lanes<E, DS, 16>;
    default:
        return nullptr;
    }
}

template<class E>
static inline GatherLanesFn gather_lanes_fn(int ds, int ss)
{
    switch (ds)
    {
    case 1:
        return gather_lanes_fn_ds<E, 1>(ss);
    case 4:
        return gather_lanes_fn_ds<E, 4>(ss);
    case 8:
        return gather_lanes_fn_ds<E, 8>(ss);
    case 16:
        return gather_lanes_fn_ds<E, 16>(ss);
    default:
        return nullptr;
    }
}

// the kernel for this element size and pair of elempacks (1, 4, 8, 16), or null
static inline GatherLanesFn gather_lanes_for(int es, int ds, int ss)
{
    if (es == 4)
        return gather_lanes_fn<unsigned int>(ds, ss);
    if (es == 2)
        return gather_lanes_fn<unsigned short>(ds, ss);
    if (es == 1)
        return gather_lanes_fn<unsigned char>(ds, ss);
    return nullptr;
}

// dst scalar channel d0 + i = src scalar channel src_of(i), i in [0, n)
// (same plane size and scalar size). Whole packed units are copied at once
// when both sides line up (`aligned`); otherwise each destination unit is
// filled lane by lane from its source channels.
template<class SrcOf>
static inline void copy_channels_map(const PackAxis& src, const PackAxis& dst, int d0, int n, const SrcOf& src_of,
                                     bool aligned, int num_threads)
{
    if (n <= 0)
        return;
    // a small copy (detection heads, 1-D blobs) on one thread: waking the
    // others costs more than the copy
    if ((size_t)n * src.plane * src.es < 65536)
        num_threads = 1;
    if (aligned)
    {
        const int ep = src.ep;
        const size_t bytes = src.plane * ep * src.es;
        #pragma omp parallel for num_threads(num_threads)
        for (int u = 0; u < n / ep; u++)
            memcpy(dst.data + (size_t)((d0 + u * ep) / ep) * dst.unit_bytes,
                   src.data + (size_t)(src_of(u * ep) / ep) * src.unit_bytes, bytes);
        return;
    }
#if defined(__SSE2__)
    if (dst.ep == 1 && src.ep >= 4 && src.es == 4)
    {
        // unpacked destination (Slice of a packed blob into unpacked ones): 4
        // channels read as two pairs of adjacent lanes (each pair inside one
        // unit) go 4 pixels at a time through a 4x4 transpose, the others (and
        // the tail) channel by channel
        const size_t sstep = (size_t)src.ep * 4, done = src.plane / 4 * 4;
        #pragma omp parallel for num_threads(num_threads)
        for (int q = 0; q < (n + 3) / 4; q++)
        {
            const int i0 = q * 4, cnt = std::min(4, n - i0);
            const unsigned char* sp[4] = {};
            for (int k = 0; k < cnt; k++)
            {
                const int c = src_of(i0 + k);
                sp[k] = src.data + (size_t)(c / src.ep) * src.unit_bytes + (size_t)(c % src.ep) * 4;
            }
            const bool pairs = cnt == 4 && sp[1] == sp[0] + 4 && sp[3] == sp[2] + 4;
            const size_t from = pairs ? done : 0;
            float* dp[4] = {};
            for (int k = 0; k < cnt; k++)
                dp[k] = (float*)(dst.data + (size_t)(d0 + i0 + k) * dst.unit_bytes);
            for (size_t i = 0; pairs && i < done; i += 4)
            {
                __m128 v[4];
                for (int j = 0; j < 4; j++)
                    v[j] = _mm_loadh_pi(_mm_castpd_ps(_mm_load_sd((const double*)(sp[0] + (i + j) * sstep))),
                                        (const __m64*)(sp[2] + (i + j) * sstep));
                _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
                for (int k = 0; k < 4; k++)
                    _mm_storeu_ps(dp[k] + i, v[k]);
            }
            for (int k = 0; k < cnt; k++)
                copy_strided<unsigned int>(sp[k] + from * sstep, src.ep, (unsigned char*)(dp[k] + from), 1, src.plane - from);
        }
        return;
    }
#endif
    const GatherLanesFn fn = gather_lanes_for(src.es, dst.ep, src.ep);
    if (!fn)
    {
        #pragma omp parallel for num_threads(num_threads)
        for (int i = 0; i < n; i++)
        {
            const int sc = src_of(i), dc = d0 + i;
            const unsigned char* s = src.data + (size_t)(sc / src.ep) * src.unit_bytes + (size_t)(sc % src.ep) * src.es;
            unsigned char* d = dst.data + (size_t)(dc / dst.ep) * dst.unit_bytes + (size_t)(dc % dst.ep) * dst.es;
            if (src.es == 4)
                copy_strided<unsigned int>(s, src.ep, d, dst.ep, src.plane);
            else if (src.es == 2)
                copy_strided<unsigned short>(s, src.ep, d, dst.ep, src.plane);
            else
                copy_strided<unsigned char>(s, src.ep, d, dst.ep, src.plane);
        }
        return;
    }
    const int ep = dst.ep;
    const int u0 = d0 / ep, u1 = (d0 + n - 1) / ep;
    #pragma omp parallel for num_threads(num_threads)
    for (int u = u0; u <= u1; u++)
    {
        const unsigned char* lane_src[16];
        const int l0 = u * ep < d0 ? d0 - u * ep : 0;
        const int l1 = (u + 1) * ep > d0 + n ? d0 + n - u * ep : ep;
        for (int l = l0; l < l1; l++)
        {
            const int sc = src_of(u * ep + l - d0);
            lane_src[l] = src.data + (size_t)(sc / src.ep) * src.unit_bytes + (size_t)(sc % src.ep) * src.es;
        }
        fn(lane_src, dst.data + (size_t)u * dst.unit_bytes, l0, l1, src.plane);
    }
}

// dst channels [d0, d0 + n) = src channels [s0, s0 + n)
static inline void copy_channels(const PackAxis& src, int s0, const PackAxis& dst, int d0, int n, int num_threads)
{
    const bool aligned = src.ep == dst.ep && s0 % src.ep == 0 && d0 % dst.ep == 0 && n % src.ep == 0;
    copy_channels_map(src, dst, d0, n, [s0](int i) { return s0 + i; }, aligned, num_threads);
}

// the same blob with each packed element seen as one wide scalar (elempack
// 1, elemsize unchanged): a reference layer that only moves elements along
// the axes that are not packed can then work on packed data directly
static inline Mat packed_as_wide(const Mat& m)
{
    Mat v = m;
    v.elempack = 1;
    return v;
}

} // namespace KITE_ISA_NS
} // namespace kite

#if KITE_SIMD_MAX_N >= 16
#define KITE_CPU_DISPATCH_PACK_WIDE(P, ep, ...) \
    if (ep == 16)                                \
    {                                            \
        const int P = 16;                        \
        __VA_ARGS__;                                  \
    }                                            \
    else if (ep == 8)                            \
    {                                            \
        const int P = 8;                         \
        __VA_ARGS__;                                  \
    }
#elif KITE_SIMD_MAX_N >= 8
#define KITE_CPU_DISPATCH_PACK_WIDE(P, ep, ...) \
    if (ep == 8)                                 \
    {                                            \
        const int P = 8;                         \
        __VA_ARGS__;                                  \
    }
#else
#define KITE_CPU_DISPATCH_PACK_WIDE(P, ep, ...) \
    if (false)                                   \
    {                                            \
    }
#endif

#define KITE_CPU_DISPATCH_PACK(P, ep, ...)  \
    KITE_CPU_DISPATCH_PACK_WIDE(P, ep, __VA_ARGS__) \
    else if (ep == 4)                        \
    {                                        \
        const int P = 4;                     \
        __VA_ARGS__;                              \
    }                                        \
    else                                     \
    {                                        \
        const int P = 1;                     \
        __VA_ARGS__;                              \
    }

#endif // KITE_CPU_PACKING_H
