// The VNNI int8 convolution kernels (see conv_int8_vnni_x86.h). Compiled only
// through the generated wrappers, with KITE_ISA_NS = avx512vnni (AVX-512 +
// -mavx512vnni) or avxvnni (AVX2 + -mavxvnni).
#include "conv_int8_vnni_x86.h"

#include "conv_int8_x86.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace kite {
namespace KITE_ISA_NS {

// L int32 lanes; dp(acc, u, s): acc + the four u8 x s8 products per lane
#if defined(__AVX512VNNI__)
struct VecQ
{
    typedef __m512i T;
    static const int NC = 12; // output channels per panel: 2 x 12 accumulators
    static T zero() { return _mm512_setzero_si512(); }
    static T load(const int32_t* p) { return _mm512_loadu_si512((const void*)p); }
    static void store(int32_t* p, T v) { _mm512_storeu_si512((void*)p, v); }
    static T set1(int32_t v) { return _mm512_set1_epi32(v); }
    static T dp(T acc, T u, T s)
    {
#if defined(__GNUC__) && !defined(__clang__)
        // GCC 12 keeps a loop's vpdpbusd accumulators in other registers
        // than the instruction's tied destination: two register copies per
        // product and accumulators spilled to the stack every step of the
        // kernels below. The instruction written out with the accumulator
        // read and written in place ("+v") leaves them in registers.
        __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(u), "v"(s));
        return acc;
#else
        return _mm512_dpbusd_epi32(acc, u, s);
#endif
    }
    static T sub(T a, T b) { return _mm512_sub_epi32(a, b); }
};
#elif defined(__AVXVNNI__)
struct VecQ
{
    typedef __m256i T;
    static const int NC = 6; // 2 x 6 accumulators of the 16 ymm registers
    static T zero() { return _mm256_setzero_si256(); }
    static T load(const int32_t* p) { return _mm256_loadu_si256((const __m256i*)p); }
    static void store(int32_t* p, T v) { _mm256_storeu_si256((__m256i*)p, v); }
    static T set1(int32_t v) { return _mm256_set1_epi32(v); }
    static T dp(T acc, T u, T s)
    {
#if defined(__GNUC__) && !defined(__clang__)
        // as above; {vex} (written %{vex%} in a GCC template): the AVX-VNNI
        // encoding, not AVX512-VNNI's EVEX
        __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(u), "x"(s));
        return acc;
#else
        return _mm256_dpbusd_avx_epi32(acc, u, s);
#endif
    }
    static T sub(T a, T b) { return _mm256_sub_epi32(a, b); }
};
#else
#error "conv_int8_vnni_x86.cpp needs -mavx512vnni or -mavxvnni"
#endif

static const int kL = simd::VI::L;  // lanes (pixels per vector)
static const int kNV = 2;       // pixel vectors per tile
static const int kTN = kNV * kL; // pixels per tile
static const int kNC = VecQ::NC;
// channel lanes: panels of kNR channels, kMR pixels per register block
static const int kNR = 2 * kL;
static const int kMR = kL == 16 ? 8 : 4;

// one channel's weights as quads into dst[k4 * stride]; returns their sum
static int pack_channel_quads(const signed char* wm, int K, int K4, int32_t* dst, int stride)
{
    int sum = 0;
    for (int k4 = 0; k4 < K4; k4++)
    {
        uint32_t q = 0;
        for (int i = 0; i < 4; i++)
        {
            const int k = 4 * k4 + i;
            const int v = k < K ? wm[k] : 0;
            sum += v;
            q |= (uint32_t)(uint8_t)(int8_t)v << (8 * i);
        }
        dst[(size_t)k4 * stride] = (int32_t)q;
    }
    return sum;
}

void conv_int8_vnni_pack_weights(const signed char* weight, int M, int K, ConvInt8VnniWeights& out)
{
    out.M = M;
    out.K = K;
    out.K4 = (K + 3) / 4;
    out.NC = kNC;
    out.NR = kNR;
    out.w.assign((size_t)out.panels() * out.K4 * kNC, 0);
    out.wc.assign((size_t)out.panels_c() * out.K4 * kNR, 0);
    out.comp.assign(std::max(out.panels() * kNC, out.panels_c() * kNR), 0);
    for (int m = 0; m < M; m++)
    {
        const signed char* wm = weight + (size_t)m * K;
        const int sum = pack_channel_quads(wm, K, out.K4, out.w.data() + (size_t)(m / kNC) * out.K4 * kNC + m % kNC, kNC);
        pack_channel_quads(wm, K, out.K4, out.wc.data() + (size_t)(m / kNR) * out.K4 * kNR + m % kNR, kNR);
        out.comp[m] = 128 * sum;
    }
}

// four rows of kTN int8 values -> kTN quads (row i in byte i), each byte + 128
static inline void interleave_quads(const signed char* const* rows, int32_t* dst)
{
    const __m128i bias = _mm_set1_epi8((char)0x80);
    for (int i = 0; i < kTN; i += 16)
    {
        const __m128i r0 = _mm_loadu_si128((const __m128i*)(rows[0] + i));
        const __m128i r1 = _mm_loadu_si128((const __m128i*)(rows[1] + i));
        const __m128i r2 = _mm_loadu_si128((const __m128i*)(rows[2] + i));
        const __m128i r3 = _mm_loadu_si128((const __m128i*)(rows[3] + i));
        const __m128i t0 = _mm_unpacklo_epi8(r0, r1), t1 = _mm_unpackhi_epi8(r0, r1);
        const __m128i t2 = _mm_unpacklo_epi8(r2, r3), t3 = _mm_unpackhi_epi8(r2, r3);
        __m128i* d = (__m128i*)(dst + i);
        _mm_storeu_si128(d + 0, _mm_xor_si128(_mm_unpacklo_epi16(t0, t2), bias));
        _mm_storeu_si128(d + 1, _mm_xor_si128(_mm_unpackhi_epi16(t0, t2), bias));
        _mm_storeu_si128(d + 2, _mm_xor_si128(_mm_unpacklo_epi16(t1, t3), bias));
        _mm_storeu_si128(d + 3, _mm_xor_si128(_mm_unpackhi_epi16(t1, t3), bias));
    }
}

// A tile's pixels as runs of one output row each: pixel r of run s reads
// src[base[s] + (r - r0[s]) * stride_w] (r0[s] <= r < r0[s + 1]). A tile
// crossing output rows then gathers a run at a time, not a byte at a time.
static const int kMaxRuns = 6;
struct TileRuns
{
    int n = 0, stride = 1;
    int r0[kMaxRuns + 1];
    int base[kMaxRuns];
    uint32_t lanes[kMaxRuns]; // bit r: pixel r is in the run
    uint64_t bytes[kMaxRuns]; // stride 2: bit 2 r for those pixels
};

// the runs of the first nn pixels of nbase (as the tile loop computes it);
// false when they are too many or the stride is not 1 or 2 (the byte
// gather then). Pixels from nn on are left out (zero or stale: never stored).
static inline bool tile_runs(const int* nbase, int nn, int stride_w, TileRuns& runs)
{
    if (stride_w != 1 && stride_w != 2)
        return false;
    runs.stride = stride_w;
    runs.n = 0;
    for (int r = 0; r < nn; r++)
    {
        if (r > 0 && nbase[r] == nbase[r - 1] + stride_w)
            continue;
        if (runs.n == kMaxRuns)
            return false;
        runs.r0[runs.n] = r;
        runs.base[runs.n] = nbase[r];
        runs.n++;
    }
    runs.r0[runs.n] = nn;
    for (int q = 0; q < runs.n; q++)
    {
        runs.lanes[q] = 0;
        runs.bytes[q] = 0;
        for (int r = runs.r0[q]; r < runs.r0[q + 1]; r++)
        {
            runs.lanes[q] |= (uint32_t)1 << r;
            runs.bytes[q] |= (uint64_t)1 << (2 * r);
        }
    }
    return true;
}

// dst[r] = s[nbase[r]] for the pixels of the runs
static inline void gather_runs(const TileRuns& runs, const signed char* s, signed char* dst)
{
#if defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__)
    static_assert(kTN == 32, "AVX-512 tiles are 32 pixels");
    // one masked load per run, shifted so that its first byte lands in lane
    // r0; the lanes outside the run are masked off (not read, cannot fault)
    __m256i v = _mm256_setzero_si256();
    for (int q = 0; q < runs.n; q++)
    {
        const signed char* p = s + runs.base[q];
        const int r0 = runs.r0[q];
        if (runs.stride == 1)
            v = _mm256_mask_loadu_epi8(v, (__mmask32)runs.lanes[q], p - r0);
        else
        {
            // 16-bit words whose low bytes are the run's pixels
            const __m512i w = _mm512_maskz_loadu_epi8((__mmask64)runs.bytes[q], p - 2 * r0);
            v = _mm256_mask_mov_epi8(v, (__mmask32)runs.lanes[q], _mm512_cvtepi16_epi8(w));
        }
    }
    _mm256_storeu_si256((__m256i*)dst, v);
#else
    for (int q = 0; q < runs.n; q++)
    {
        const int r0 = runs.r0[q], len = runs.r0[q + 1] - r0;
        const signed char* p = s + runs.base[q];
        if (runs.stride == 1)
            memcpy(dst + r0, p, len);
        else
            for (int r = 0; r < len; r++)
                dst[r0 + r] = p[2 * r];
    }
#endif
}

// what every panel of one job shares
struct VnniJob
{
    const ConvInt8Job* j;
    const ConvInt8VnniWeights* pw;
    int N;
    bool requant, vec_finish;
    int op;
    // per channel, padded to whole channel-lane panels (scale_out 1 when
    // not requantizing)
    std::vector<float> scale_in, bias, scale_out;

    size_t out_offset(int m) const { return j->out.cstep * op * (size_t)(m / op) + m % op; }
};

// pixel lanes: kNC channels x kTN pixels of tile btile, planar output
static void panel_pixel_lanes(const VnniJob& c, const int32_t* btile, int n0, int p, int32_t* accs)
{
    const ConvInt8Job& j = *c.j;
    const int K4 = c.pw->K4;
    const int32_t* w = c.pw->w.data() + (size_t)p * K4 * kNC;
    const int32_t* b = btile;
    VecQ::T acc[kNC][kNV];
#pragma GCC unroll 16
    for (int ch = 0; ch < kNC; ch++)
        for (int v = 0; v < kNV; v++)
            acc[ch][v] = VecQ::zero();
    for (int k4 = 0; k4 < K4; k4++)
    {
        const VecQ::T x0 = VecQ::load(b), x1 = VecQ::load(b + kL);
#pragma GCC unroll 16
        for (int ch = 0; ch < kNC; ch++)
        {
            const VecQ::T wc = VecQ::set1(w[ch]);
            acc[ch][0] = VecQ::dp(acc[ch][0], x0, wc);
            acc[ch][1] = VecQ::dp(acc[ch][1], x1, wc);
        }
        b += kTN;
        w += kNC;
    }
    // (spilled with constant indices only, so the loop above keeps every
    // accumulator in a register)
#pragma GCC unroll 16
    for (int ch = 0; ch < kNC; ch++)
        for (int v = 0; v < kNV; v++)
            VecQ::store(accs + (ch * kNV + v) * kL, acc[ch][v]);
    const int m0 = p * kNC, mc = std::min(kNC, c.pw->M - m0);
    for (int ch = 0; ch < mc; ch++)
    {
        const int m = m0 + ch;
        const VecQ::T comp = VecQ::set1(c.pw->comp[m]);
        const VIF::T si = VIF::set1(c.scale_in[m]), bi = VIF::set1(c.bias[m]), so = VIF::set1(c.scale_out[m]);
        const size_t om = c.out_offset(m);
        for (int v = 0; v < kNV; v++)
        {
            const int nv0 = n0 + v * kL, cnt = std::min(kL, c.N - nv0);
            if (cnt <= 0)
                break;
            int32_t* sums = accs + (ch * kNV + v) * kL;
            const VecQ::T s = VecQ::sub(VecQ::load(sums), comp);
            if (c.vec_finish && (c.requant || c.op == 1))
            {
                const VIF::T f = int8_vec_finish(simd::VI::to_float(s), si, bi, so, c.requant, j.numerics, j.act);
                if (c.requant)
                    store_int8((signed char*)j.out.data + om + nv0, f, cnt);
                else
                    store_f32((float*)j.out.data + om + nv0, f, cnt);
                continue;
            }
            VecQ::store(sums, s);
            for (int r = 0; r < cnt; r++)
                conv_int8_finish(sums[r], m, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                 om + (size_t)(nv0 + r) * c.op);
        }
    }
}

// channel lanes: kNR channels x kTN pixels (kMR at a time), fp32 output of
// any elempack; NV 1: the panel's first kL channels only (a last panel with
// at most kL of the M channels: the rest are zero weights)
// The input quads of a tile: quad k4 of pixel r at src[(k4 / Q) * gstride +
// r * Q + k4 % Q] (int32 units). Q 1, gstride kTN: the packed tile [K4][kTN];
// Q 1 / 2 / 4: a u8 blob packed by 4 / 8 / 16 channels (conv1x1_int8_vnni_packed:
// each pixel's E channels are Q quads, gstride the channel-group step)
template<int NV, int Q>
static void panel_channel_lanes_nv(const VnniJob& c, const int32_t* src, size_t gstride, int n0, int p, int32_t* accs)
{
    const ConvInt8Job& j = *c.j;
    const int K4 = c.pw->K4, M = c.pw->M;
    const int m0 = p * kNR;
    const VecQ::T comp0 = VecQ::load(c.pw->comp.data() + m0), comp1 = VecQ::load(c.pw->comp.data() + m0 + kL);
    for (int r0 = 0; r0 < kTN && n0 + r0 < c.N; r0 += kMR)
    {
        const int32_t* w = c.pw->wc.data() + (size_t)p * K4 * kNR;
        const int32_t* bg = src + (size_t)r0 * Q;
        VecQ::T acc0[kMR], acc1[kMR];
#pragma GCC unroll 16
        for (int r = 0; r < kMR; r++)
            acc0[r] = acc1[r] = VecQ::zero();
        for (int k4 = 0; k4 < K4; k4 += Q, bg += gstride)
        {
#pragma GCC unroll 4
            for (int qq = 0; qq < Q; qq++)
            {
                const int32_t* b = bg + qq;
                const VecQ::T w0 = VecQ::load(w);
                const VecQ::T w1 = NV == 2 ? VecQ::load(w + kL) : w0;
#pragma GCC unroll 16
                for (int r = 0; r < kMR; r++)
                {
                    const VecQ::T x = VecQ::set1(b[r * Q]);
                    acc0[r] = VecQ::dp(acc0[r], x, w0);
                    if (NV == 2)
                        acc1[r] = VecQ::dp(acc1[r], x, w1);
                }
                w += kNR;
            }
        }
#pragma GCC unroll 16
        for (int r = 0; r < kMR; r++)
        {
            VecQ::store(accs + (2 * r) * kL, VecQ::sub(acc0[r], comp0));
            if (NV == 2)
                VecQ::store(accs + (2 * r + 1) * kL, VecQ::sub(acc1[r], comp1));
        }
        const int nr = std::min(kMR, c.N - n0 - r0);
        for (int h = 0; h < NV; h++)
        {
            const int m = m0 + h * kL;
            if (m >= M)
                break;
            if (c.vec_finish)
            {
                // the panel's scales loaded once; an output packed by kL
                // with all kL channels present takes the vector as it is
                const VIF::T si = VIF::load(c.scale_in.data() + m), bi = VIF::load(c.bias.data() + m);
                const VIF::T so = VIF::load(c.scale_out.data() + m);
                const bool whole = c.op == kL && m + kL <= M;
                float* orow = (float*)j.out.data + j.out.cstep * kL * (size_t)(m / kL);
                for (int r = 0; r < nr; r++)
                {
                    const size_t n = (size_t)n0 + r0 + r;
                    int32_t* sums = accs + (2 * r + h) * kL;
                    const VIF::T f = int8_vec_finish(simd::VI::to_float(VecQ::load(sums)), si, bi, so, false, j.numerics, j.act);
                    if (whole)
                    {
                        VIF::store(orow + n * kL, f);
                        continue;
                    }
                    float* lanes = (float*)sums; // finished in place
                    VIF::store(lanes, f);
                    store_channels<kL>((float*)j.out.data, j.out.cstep, c.op, M, m, n, lanes);
                }
                continue;
            }
            for (int r = 0; r < nr; r++)
            {
                const size_t n = (size_t)n0 + r0 + r;
                int32_t* sums = accs + (2 * r + h) * kL;
                for (int i = 0; i < kL && m + i < M; i++)
                    conv_int8_finish(sums[i], m + i, j.bias, j.scale_in, j.scale_out, j.act, j.numerics, j.out.data,
                                     c.out_offset(m + i) + n * c.op);
            }
        }
    }
}

template<int Q>
static void panel_channel_lanes(const VnniJob& c, const int32_t* src, size_t gstride, int n0, int p, int32_t* accs)
{
    if (p * kNR + kL >= c.pw->M)
        panel_channel_lanes_nv<1, Q>(c, src, gstride, n0, p, accs);
    else
        panel_channel_lanes_nv<2, Q>(c, src, gstride, n0, p, accs);
}

// what conv_int8_vnni_gemm and conv1x1_int8_vnni_packed share: the job's
// per-channel scales padded to whole panels
// work items: a tile with a range of panels (groups ranges of per_group);
// the panels split when there are too few tiles to keep every thread busy
static inline void vnni_work_items(int tiles, int panels, int num_threads, int& groups, int& per_group)
{
    groups = 1;
    if (tiles < 4 * num_threads)
        groups = std::min(panels, (4 * num_threads + tiles - 1) / tiles);
    per_group = (panels + groups - 1) / groups;
    groups = (panels + per_group - 1) / per_group;
}

static void vnni_job_init(VnniJob& c, const ConvInt8Job& j, const ConvInt8VnniWeights& pw)
{
    c.j = &j;
    c.pw = &pw;
    c.N = j.out.w * j.out.h;
    c.requant = j.scale_out != nullptr;
    c.vec_finish = int8_vec_finish_ok(j.act, j.numerics);
    c.op = j.out_elempack;
    const size_t padded_m = pw.comp.size();
    c.scale_in.assign(padded_m, 0.f);
    c.bias.assign(padded_m, 0.f);
    c.scale_out.assign(padded_m, 1.f);
    for (int m = 0; m < pw.M; m++)
    {
        c.scale_in[m] = j.scale_in[m];
        c.bias[m] = j.bias ? j.bias[m] : 0.f;
        c.scale_out[m] = c.requant ? j.scale_out[m] : 1.f;
    }
}

void conv1x1_int8_vnni_packed(const ConvInt8Job& j, const unsigned char* in_u8, size_t group_bytes, int E,
                              const ConvInt8VnniWeights& pw, int num_threads)
{
    VnniJob c;
    vnni_job_init(c, j, pw);
    const int N = c.N;
    const int tiles = (N + kTN - 1) / kTN;
    const int panels = pw.panels_c();
    int groups, per_group;
    vnni_work_items(tiles, panels, num_threads, groups, per_group);
    const int items = tiles * groups;
    const int Q = E / 4;
    const int32_t* src = (const int32_t*)in_u8;
    const size_t gstride = group_bytes / 4;
    #pragma omp parallel num_threads(num_threads)
    {
        alignas(64) int32_t accs[(kNC * kNV > 2 * kMR ? kNC * kNV : 2 * kMR) * kL];
        #pragma omp for schedule(dynamic)
        for (int it = 0; it < items; it++)
        {
            const int t = it / groups, grp = it % groups;
            const int n0 = t * kTN;
            const int32_t* s = src + (size_t)n0 * Q;
            const int p1 = std::min(panels, (grp + 1) * per_group);
            for (int p = grp * per_group; p < p1; p++)
            {
                if (Q == 4)
                    panel_channel_lanes<4>(c, s, gstride, n0, p, accs);
                else if (Q == 2)
                    panel_channel_lanes<2>(c, s, gstride, n0, p, accs);
                else
                    panel_channel_lanes<1>(c, s, gstride, n0, p, accs);
            }
        }
    }
}

void conv_int8_vnni_gemm(const ConvInt8Job& j, const ConvInt8VnniWeights& pw, int num_threads)
{
    const ConvGeometry& g = j.g;
    int W = 0, H = 0;
    size_t cs = 0;
    std::vector<signed char> padded;
    const signed char* src = conv_int8_padded_input(j, padded, &W, &H, &cs, num_threads);

    const int K = pw.K, K4 = pw.K4;
    std::vector<int> koff;
    conv_int8_tap_offsets(j, W, cs, koff);

    VnniJob c;
    vnni_job_init(c, j, pw);
    // packed fp32 outputs take channel lanes (whole packed elements per
    // pixel), planar ones pixel lanes (whole runs of a channel)
    const bool channel_lanes = !c.requant && c.op > 1;

    const int outw = j.out.w, N = c.N;
    const int tiles = (N + kTN - 1) / kTN;
    const int panels = channel_lanes ? pw.panels_c() : pw.panels();
    int groups, per_group;
    vnni_work_items(tiles, panels, num_threads, groups, per_group);
    const int items = tiles * groups;

    const int* ko = koff.data();
    static const signed char zeros[kTN] = {};

    #pragma omp parallel num_threads(num_threads)
    {
        std::vector<int32_t> btile((size_t)K4 * kTN);
        signed char gathered[4][kTN];
        int nbase[kTN];
        alignas(64) int32_t accs[(kNC * kNV > 2 * kMR ? kNC * kNV : 2 * kMR) * kL];
        int packed_tile = -1;
        #pragma omp for schedule(dynamic)
        for (int it = 0; it < items; it++)
        {
            const int t = it / groups, grp = it % groups;
            const int n0 = t * kTN, nn = std::min(kTN, N - n0);
            if (packed_tile != t)
            {
                // the tile's input quads [K4][kTN]
                bool contiguous = nn == kTN;
                for (int r = 0; r < kTN; r++)
                {
                    const int n = std::min(n0 + r, N - 1);
                    nbase[r] = (n / outw) * g.stride_h * W + (n % outw) * g.stride_w;
                    contiguous = contiguous && nbase[r] == nbase[0] + r;
                }
                TileRuns runs;
                const bool use_runs = !contiguous && tile_runs(nbase, nn, g.stride_w, runs);
                for (int k4 = 0; k4 < K4; k4++)
                {
                    const signed char* rows[4];
                    for (int i = 0; i < 4; i++)
                    {
                        const int k = 4 * k4 + i;
                        if (k >= K)
                            rows[i] = zeros;
                        else if (contiguous)
                            rows[i] = src + ko[k] + nbase[0];
                        else if (use_runs)
                        {
                            gather_runs(runs, src + ko[k], gathered[i]);
                            rows[i] = gathered[i];
                        }
                        else
                        {
                            const signed char* s = src + ko[k];
                            for (int r = 0; r < kTN; r++)
                                gathered[i][r] = s[nbase[r]];
                            rows[i] = gathered[i];
                        }
                    }
                    interleave_quads(rows, btile.data() + (size_t)k4 * kTN);
                }
                packed_tile = t;
            }
            const int p1 = std::min(panels, (grp + 1) * per_group);
            for (int p = grp * per_group; p < p1; p++)
            {
                if (channel_lanes)
                    panel_channel_lanes<1>(c, btile.data(), kTN, n0, p, accs);
                else
                    panel_pixel_lanes(c, btile.data(), n0, p, accs);
            }
        }
    }
}

void int8_gemv_vnni(const signed char* x, const signed char* w, int M, int K, int32_t* sums, int num_threads)
{
    // x + 128 as u8 times the signed weights, 4 per lane; the +128 comes back
    // out through 128 * (the row's sum, from the same weights times ones)
    const int V = 4 * kL; // int8 values per step
    const int Kv = K / V * V;
    std::vector<uint8_t> xu(Kv);
    for (int k = 0; k < Kv; k++)
        xu[k] = (uint8_t)(x[k] ^ 0x80);
    const VecQ::T ones = VecQ::set1(0x01010101);
    int8_gemv_quads(x, w, M, K, Kv, sums, num_threads, [&](const signed char* const* wr, int32_t* s) {
        VecQ::T a[4], c[4];
        for (int i = 0; i < 4; i++)
            a[i] = c[i] = VecQ::zero();
        for (int k = 0; k < Kv; k += V)
        {
            const VecQ::T xv = VecQ::load((const int32_t*)(xu.data() + k));
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++)
            {
                const VecQ::T wv = VecQ::load((const int32_t*)(wr[i] + k));
                a[i] = VecQ::dp(a[i], xv, wv);
                c[i] = VecQ::dp(c[i], ones, wv);
            }
        }
        for (int i = 0; i < 4; i++)
            s[i] = reduce_add_i32(a[i]) - 128 * reduce_add_i32(c[i]);
    });
}

} // namespace KITE_ISA_NS
} // namespace kite
